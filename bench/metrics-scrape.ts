/**
 * `npm run bench:metrics`: what a Prometheus scrape of the operations listener costs with an empty ledger and
 * with 100,000 ledger rows, measured side by side in one run (rounds alternate between the two databases).
 * The scrape reads in-process counters only, so the ratio should stay near 1 (target: within 2×). For
 * contrast, the same run times the scrape-time ledger sums the service used to run on every scrape.
 * Real embedded Postgres; each scrape goes through the real ops app over HTTP with its bearer token.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createAccountQueries } from '../src/db/queries/accounts';
import { createLedgerQueries } from '../src/db/queries/ledger';
import { createDatabasePool, type Pool } from '../src/db/pool';
import { migrate } from '../src/db/migrate';
import { sql } from '../src/db/sql';
import { KeyVault } from '../src/domain/key-vault';
import { createOpsApp } from '../src/http/ops';
import { ensureDatabase, startEmbeddedPostgres } from '../src/local/embedded-postgres';
import { silentLogger } from '../src/logger';
import { renderMetrics } from '../src/metrics';
import { PayloadEncryptionCodec } from '../src/workflow-clients/payload-codec';

const ROWS = Number(process.env.BENCH_LEDGER_ROWS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SCRAPES = Number(process.env.BENCH_SCRAPES ?? 200);
const TOKEN = 'bench-ops-token-0123456789';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function setup(pgUrl: (db?: string) => string, name: string, rows: number): Promise<Pool> {
  await ensureDatabase(pgUrl(), name);
  await migrate(pgUrl(name));
  const pool = await createDatabasePool(pgUrl(name), { maximumPoolSize: 4 });
  const { account } = await createAccountQueries(pool).insertAccountWithKey('bench');
  // Real posts (they move the counters), then the bulk in one statement.
  const ledger = createLedgerQueries(pool);
  for (let i = 0; i < Math.min(rows, 100); i++) {
    await ledger.postEntry({ accountId: account.id, type: 'credit_topup', amountMicros: 1_000_000, description: 'bench', idempotencyKey: `post-${i}` });
  }
  if (rows > 100) {
    await pool.query(sql.typeAlias('void')`
      INSERT INTO ledger_entries (id, account_id, type, amount_micros, balance_after_micros, description, idempotency_key)
      SELECT 'txn_bench' || g, ${account.id}, 'credit_topup', 1000000, 0, 'bench', 'bulk-' || g FROM generate_series(1, ${rows - 100}) g`);
    await pool.query(sql.typeAlias('void')`ANALYZE ledger_entries`);
  }
  return pool;
}

/** One ops listener per database, as the API process runs it (metrics need no pool: that is the point). */
async function listen(pool: Pool): Promise<{ url: string; server: Server }> {
  const app = createOpsApp({
    logger: silentLogger,
    token: TOKEN,
    codec: new PayloadEncryptionCodec(new KeyVault('bench', Buffer.alloc(32, 7))),
    corsOrigins: [],
    metrics: () => renderMetrics(),
    ready: async () => (await pool.query(sql.typeAlias('void')`SELECT`), true),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/metrics`, server };
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
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-metrics-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: 20000 + Math.floor(Math.random() * 20000) });
  try {
    const empty = await setup((db) => pg.url(db), 'bench_empty', 0);
    const full = await setup((db) => pg.url(db), 'bench_full', ROWS);
    const [emptyOps, fullOps] = [await listen(empty), await listen(full)];
    await timeScrapes(emptyOps.url); // warm-up
    const scrape = { empty: [] as number[], full: [] as number[] };
    const sums = { empty: [] as number[], full: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      scrape.empty.push(await timeScrapes(emptyOps.url));
      scrape.full.push(await timeScrapes(fullOps.url));
      sums.empty.push(await timeOldSums(empty));
      sums.full.push(await timeOldSums(full));
    }
    const [se, sf, oe, of] = [median(scrape.empty), median(scrape.full), median(sums.empty), median(sums.full)];
    process.stdout.write(
      [
        `ledger rows: 0 vs ${ROWS.toLocaleString('en')}; ${ROUNDS} alternating rounds of ${SCRAPES} scrapes (median of round medians)`,
        `GET /metrics (ops listener):  empty ${se.toFixed(3)} ms   ${ROWS.toLocaleString('en')} rows ${sf.toFixed(3)} ms   ratio ${(sf / se).toFixed(2)}× (target ≤ 2×)`,
        `old scrape-time ledger sums:  empty ${oe.toFixed(3)} ms   ${ROWS.toLocaleString('en')} rows ${of.toFixed(3)} ms   ratio ${(of / oe).toFixed(1)}× (no longer run)`,
        `load: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
        '',
      ].join('\n'),
    );
    emptyOps.server.close();
    fullOps.server.close();
    await Promise.all([empty.end(), full.end()]);
  } finally {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
