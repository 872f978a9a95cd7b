/**
 * `npm run bench:metrics`: what a Prometheus scrape of the operations listener costs with an empty ledger and
 * with 100,000 ledger rows, measured side by side in one run (rounds alternate between the two databases).
 * The scrape reads in-process counters only, so the ratio should stay near 1 (target: within 2×). For
 * contrast, the same run times the scrape-time ledger sums the service used to run on every scrape.
 * Real embedded Postgres; each scrape goes through the real ops app over HTTP with its bearer token.
 */
import os from 'node:os';
import { z } from 'zod';
import { createAccountQueries } from '../src/db/queries/accounts';
import { createLedgerQueries } from '../src/db/queries/ledger';
import type { Pool } from '../src/db/pool';
import { sql } from '../src/db/sql';
import { KeyVault } from '../src/domain/key-vault';
import { createOpsApp } from '../src/http/ops';
import { silentLogger } from '../src/logger';
import { renderMetrics } from '../src/metrics';
import { PayloadEncryptionCodec } from '../src/workflow-clients/payload-codec';
import { type BenchStack, median, runBench, startBench } from './harness';

const ROWS = Number(process.env.BENCH_LEDGER_ROWS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SCRAPES = Number(process.env.BENCH_SCRAPES ?? 200);
const TOKEN = 'bench-ops-token-0123456789';

async function setup(stack: BenchStack, name: string, rows: number): Promise<Pool> {
  const { pool } = await stack.database(name, 4);
  const { account } = await createAccountQueries(pool).insertAccountWithKey('bench');
  // Real posts (they move the counters), then the bulk in one statement.
  const ledger = createLedgerQueries(pool);
  for (let i = 0; i < Math.min(rows, 100); i++) {
    await ledger.postEntry({
      accountId: account.id,
      type: 'credit_topup',
      amountMicros: 1_000_000,
      description: 'bench',
      idempotencyKey: `post-${i}`,
    });
  }
  if (rows > 100) {
    await pool.query(sql.typeAlias('void')`
      INSERT INTO ledger_entries
        (id, account_id, type, amount_micros, balance_after_micros, description, idempotency_key)
      SELECT 'txn_bench' || g, ${account.id}, 'credit_topup', 1000000, 0, 'bench', 'bulk-' || g
      FROM generate_series(1, ${rows - 100}) g`);
    await pool.query(sql.typeAlias('void')`ANALYZE ledger_entries`);
  }
  return pool;
}

/** One ops listener per database, as the API process runs it (metrics need no pool: that is the point). */
async function listen(stack: BenchStack, pool: Pool): Promise<string> {
  const app = createOpsApp({
    logger: silentLogger,
    token: TOKEN,
    codec: new PayloadEncryptionCodec(new KeyVault('bench', Buffer.alloc(32, 7))),
    corsOrigins: [],
    metrics: () => renderMetrics(),
    ready: async () => (await pool.query(sql.typeAlias('void')`SELECT`), true),
  });
  const { url } = await stack.listen(app);
  return `${url}/metrics`;
}

async function timeScrapes(url: string): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < SCRAPES; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    if (res.status !== 200) throw new Error(`scrape answered ${res.status}`);
    await res.text();
    ms.push(performance.now() - started);
  }
  return median(ms);
}

/** The whole-table sums the API used to run at every scrape (for contrast only). */
async function timeOldSums(pool: Pool): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await pool.one(sql.type(z.object({ a: z.string(), b: z.string(), c: z.string() }))`
      SELECT
        (SELECT coalesce(-sum(amount_micros), 0) FROM ledger_entries WHERE type = 'instance_charge')::text AS a,
        (SELECT coalesce(sum(amount_micros), 0) FROM ledger_entries WHERE type = 'credit_topup')::text AS b,
        (SELECT coalesce(sum(balance_micros), 0) FROM account_balances)::text AS c`);
    ms.push(performance.now() - started);
  }
  return median(ms);
}

async function main(): Promise<void> {
  const stack = await startBench('metrics');
  const empty = await setup(stack, 'bench_empty', 0);
  const full = await setup(stack, 'bench_full', ROWS);
  const [emptyUrl, fullUrl] = [await listen(stack, empty), await listen(stack, full)];
  await timeScrapes(emptyUrl); // warm-up
  const scrape = { empty: [] as number[], full: [] as number[] };
  const sums = { empty: [] as number[], full: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    scrape.empty.push(await timeScrapes(emptyUrl));
    scrape.full.push(await timeScrapes(fullUrl));
    sums.empty.push(await timeOldSums(empty));
    sums.full.push(await timeOldSums(full));
  }
  const [se, sf, oe, of] = [median(scrape.empty), median(scrape.full), median(sums.empty), median(sums.full)];
  const rows = ROWS.toLocaleString('en');
  process.stdout.write(
    [
      `ledger rows: 0 vs ${rows}; ${ROUNDS} alternating rounds of ${SCRAPES} scrapes (median of round medians)`,
      `GET /metrics (ops listener):  empty ${se.toFixed(3)} ms   ${rows} rows ${sf.toFixed(3)} ms   ` +
        `ratio ${(sf / se).toFixed(2)}× (target ≤ 2×)`,
      `old scrape-time ledger sums:  empty ${oe.toFixed(3)} ms   ${rows} rows ${of.toFixed(3)} ms   ` +
        `ratio ${(of / oe).toFixed(1)}× (no longer run)`,
      `load: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      '',
    ].join('\n'),
  );
}

runBench(main);
