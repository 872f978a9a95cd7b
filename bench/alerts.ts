/**
 * `npm run bench:alerts`: 100,000 active alerts (price_drop and budget_limit, many accounts, GPUs weighted by
 * popularity, thresholds spread below the current prices and above the current spend) are evaluated once
 * after one pricing refresh in which some GPUs got cheaper and new charges landed. Prints the evaluation's
 * time and triggered count beside a bare SQL statement doing the same comparisons on the same data, in the
 * same run. Real embedded Postgres; offers come from the provider simulators through the real adapters.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createAlertQueries } from '../src/db/queries/alerts';
import { createPricingQueries, type ProviderOutcome } from '../src/db/queries/pricing';
import { createDatabasePool, type Pool } from '../src/db/pool';
import { migrate } from '../src/db/migrate';
import { sql } from '../src/db/sql';
import { toStoredOffer, MAX_OFFER_AGE_MS, type StoredOffer } from '../src/domain/pricing';
import { ensureDatabase, startEmbeddedPostgres } from '../src/local/embedded-postgres';
import { silentLogger } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import { PROVIDERS, type ProviderId } from '../src/providers/types';
import { simulatorBaseUrls, startSimulators } from '../simulators';

const ALERTS = Number(process.env.BENCH_ALERTS ?? 100_000);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const PRICE_SHARE = 0.6;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CHUNK = 10_000;

/** Deterministic PRNG (mulberry32) so every run evaluates the same data. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(20261122);
const between = (lo: number, hi: number) => lo + random() * (hi - lo);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;

type VoidQuery = ReturnType<ReturnType<typeof sql.typeAlias<'void'>>>;

async function insertChunks(pool: Pool, rows: unknown[][], insert: (chunk: unknown[][]) => VoidQuery): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await pool.query(insert(rows.slice(i, i + CHUNK)));
}

async function currentOffers(): Promise<StoredOffer[]> {
  const sims = await startSimulators();
  try {
    const adapters = createProviderAdapters({ ...simulatorBaseUrls(sims), timeoutMs: 10_000, logger: silentLogger });
    const keys: Record<ProviderId, string> = { runpod: sims.runpod.createKey(), vastai: sims.vastai.createKey(), lambda: sims.lambda.createKey() };
    const lists = await Promise.all(PROVIDERS.map((p) => adapters[p].listOffers(keys[p])));
    return lists.flat().map(toStoredOffer);
  } finally {
    await sims.close();
  }
}

async function recordRefresh(pool: Pool, offers: StoredOffer[]): Promise<void> {
  const outcomes = Object.fromEntries(PROVIDERS.map((p) => [p, { ok: true, offers: offers.filter((o) => o.provider === p) }])) as Record<
    ProviderId,
    ProviderOutcome
  >;
  await createPricingQueries(pool).recordRefresh(outcomes, new Date());
}

async function seed(pool: Pool, offers: StoredOffer[]): Promise<{ gpus: string[]; dropped: string[] }> {
  // The lowest available price per GPU before the refresh: price thresholds sit below it.
  const best = new Map<string, number>();
  for (const o of offers) if (o.availability > 0) best.set(o.gpuType, Math.min(best.get(o.gpuType) ?? Infinity, o.pricePerHourMicros));
  const gpus = [...best.keys()];
  // Popularity: a few GPUs (H100, A100, 4090…) carry most alerts (Zipf-like weights in catalog order).
  const weights = gpus.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((s, w) => s + w, 0);
  const weightedGpu = () => {
    let r = random() * total;
    for (let i = 0; i < gpus.length; i++) if ((r -= weights[i]!) <= 0) return gpus[i]!;
    return gpus[gpus.length - 1]!;
  };

  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `acct_bench${String(i).padStart(6, '0')}`);
  await insertChunks(pool, accounts.map((id) => [id, 'bench']), (c) =>
    sql.typeAlias('void')`INSERT INTO accounts (id, name) SELECT * FROM ${sql.unnest(c as [string, string][], ['text', 'text'])}`);

  // Spend so far this month per account: five charges each.
  const spentBefore = new Map(accounts.map((a) => [a, Math.round(between(0, 800) * 1e6)]));
  const ledger: unknown[][] = [];
  for (const [account, micros] of spentBefore) {
    for (let k = 0; k < 5; k++) ledger.push([`txn_b${account}_${k}`, account, -Math.round(micros / 5), `charge ${k}`, `i_${account}`, `before:${k}`]);
  }
  const insertLedger = (c: unknown[][]) =>
    sql.typeAlias('void')`
      INSERT INTO ledger_entries (id, account_id, type, amount_micros, balance_after_micros, description, instance_id, idempotency_key)
      SELECT id, account_id, 'instance_charge', amount, 0, description, instance_id, key
      FROM ${sql.unnest(c as [string, string, number, string, string, string][], ['text', 'text', 'int8', 'text', 'text', 'text'])}
        AS t(id, account_id, amount, description, instance_id, key)`;
  await insertChunks(pool, ledger, insertLedger);

  const alerts: unknown[][] = [];
  const stopAccounts = new Set<string>();
  for (let i = 0; i < ALERTS; i++) {
    const account = pick(accounts);
    if (i < ALERTS * PRICE_SHARE) {
      const gpu = weightedGpu();
      alerts.push([`alert_b${i}`, account, 'price_drop', 'notify', gpu, Math.max(1, Math.round(best.get(gpu)! * between(0.5, 0.99)))]);
    } else {
      const stop = random() < 0.1;
      if (stop) stopAccounts.add(account);
      alerts.push([`alert_b${i}`, account, 'budget_limit', stop ? 'stop_instances' : 'notify', null, spentBefore.get(account)! + Math.round(between(5, 1500) * 1e6)]);
    }
  }
  await insertChunks(pool, alerts, (c) =>
    sql.typeAlias('void')`
      INSERT INTO alerts (id, account_id, type, action, gpu_type, threshold_micros)
      SELECT * FROM ${sql.unnest(c as [string, string, string, string, string | null, number][], ['text', 'text', 'text', 'text', 'text', 'int8'])}`);

  // Accounts with a stop_instances budget run one or two managed instances.
  const instances: unknown[][] = [];
  for (const account of stopAccounts) {
    for (let k = 0; k < 1 + Math.floor(random() * 2); k++) {
      const provider = pick(PROVIDERS);
      instances.push([`launch-${account}-${k}`, account, provider, `${provider}-${account}-${k}`, pick(gpus)]);
    }
  }
  await insertChunks(pool, instances, (c) =>
    sql.typeAlias('void')`
      INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type, gpu_count, price_per_hour_micros)
      SELECT id, account_id, 'bench', provider, pid, 'bench', 'running', gpu, 1, 1000000
      FROM ${sql.unnest(c as [string, string, string, string, string][], ['text', 'text', 'text', 'text', 'text'])} AS t(id, account_id, provider, pid, gpu)`);

  // What lands before the evaluation: new charges for every account (a few cross their budgets) …
  await insertChunks(
    pool,
    accounts.map((a) => [`txn_n${a}`, a, -Math.round(between(0, 120) * 1e6), 'new charge', `i_${a}`, 'new']),
    insertLedger,
  );
  // … and a refresh in which four of the GPUs got 10–30 % cheaper at their cheapest provider.
  const dropped = gpus.filter((_, i) => i % 5 === 1).slice(0, 4);
  const factor = new Map(dropped.map((g) => [g, between(0.7, 0.9)]));
  await recordRefresh(
    pool,
    offers.map((o) => (factor.has(o.gpuType) ? { ...o, pricePerHourMicros: Math.round(o.pricePerHourMicros * factor.get(o.gpuType)!) } : o)),
  );
  await pool.query(sql.typeAlias('void')`ANALYZE`);
  return { gpus, dropped };
}

/** The same two comparisons as the evaluation, as one read-only statement. */
async function bareCount(pool: Pool): Promise<{ price: number; budget: number }> {
  return pool.one(sql.type(z.object({ price: z.number(), budget: z.number() }))`
    WITH best AS (
      SELECT gpu_type, min(price_per_hour_micros) AS price FROM pricing_offers
      WHERE availability > 0 AND fetched_at > now() - make_interval(secs => ${MAX_OFFER_AGE_MS / 1000}) GROUP BY gpu_type),
    spend AS (
      SELECT account_id, sum(-amount_micros) AS micros FROM ledger_entries
      WHERE type = 'instance_charge' AND created_at >= date_trunc('month', now(), 'UTC') GROUP BY account_id)
    SELECT
      (SELECT count(*) FROM alerts a JOIN best b ON b.gpu_type = a.gpu_type
        WHERE a.status = 'active' AND a.type = 'price_drop' AND a.threshold_micros >= b.price)::int8 AS price,
      (SELECT count(*) FROM alerts a JOIN spend s ON s.account_id = a.account_id
        WHERE a.status = 'active' AND a.type = 'budget_limit' AND s.micros >= a.threshold_micros)::int8 AS budget`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs `fn` inside a transaction that is always rolled back, and returns its result. */
async function rolledBack<T>(pool: Pool, fn: (tx: Pool) => Promise<T>): Promise<T> {
  const rollback = new Error('rollback');
  let result: T | undefined;
  await pool
    .transaction(async (tx) => {
      // A transaction connection has the pool's query methods; nested transactions become savepoints.
      result = await fn(tx as unknown as Pool);
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  return result!;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, value };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-bench-alerts-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: 20000 + Math.floor(Math.random() * 20000) });
  let pool: Pool | undefined;
  try {
    await ensureDatabase(pg.url(), 'bench');
    await migrate(pg.url('bench'));
    pool = await createDatabasePool(pg.url('bench'), { maximumPoolSize: 4 });
    const offers = await currentOffers();
    await recordRefresh(pool, offers);
    const seeding = await timed(() => seed(pool!, offers));
    const { gpus, dropped } = seeding.value;

    await bareCount(pool); // warm-up: caches and plans for both
    // Alternating rounds on identical data: each evaluation runs in a transaction that is rolled back, so
    // every round finds the same 100k active alerts; then one evaluation commits for real.
    const bareRuns: number[] = [];
    const evaluationRuns: number[] = [];
    let bare = { price: 0, budget: 0 };
    for (let i = 0; i < ROUNDS; i++) {
      const b = await timed(() => bareCount(pool!));
      bareRuns.push(b.ms);
      bare = b.value;
      const e = await timed(() => rolledBack(pool!, (tx) => createAlertQueries(tx).evaluate({ price: true, budget: true })));
      evaluationRuns.push(e.ms);
    }
    const committed = await timed(() => createAlertQueries(pool!).evaluate({ price: true, budget: true }));
    const r = committed.value;
    const events = await pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int8 AS n FROM events WHERE type = 'alert.triggered'`);
    const again = await timed(() => createAlertQueries(pool!).evaluate({ price: true, budget: true }));
    const evaluationMs = median(evaluationRuns);
    const bareMs = median(bareRuns);

    const agree = r.priceTriggered === bare.price && r.budgetTriggered === bare.budget && events === r.priceTriggered + r.budgetTriggered;
    process.stdout.write(
      [
        `${ALERTS} active alerts (${Math.round(PRICE_SHARE * 100)}% price_drop over ${gpus.length} GPUs, the rest budget_limit), ${ACCOUNTS} accounts; ` +
          `refresh dropped ${dropped.join(', ')} by 10–30% (seeded in ${(seeding.ms / 1000).toFixed(1)} s)`,
        `evaluation (conditional UPDATEs + events + stop requests, one statement; median of ${ROUNDS}): ${evaluationMs.toFixed(0)} ms ` +
          `(runs ${evaluationRuns.map((x) => x.toFixed(0)).join(', ')}; committed run ${committed.ms.toFixed(0)} ms), ` +
          `triggered ${r.priceTriggered} price_drop + ${r.budgetTriggered} budget_limit, ${r.stopRequests} stop requests, ${events} alert.triggered events`,
        `bare SQL (SELECT count(*) of the same comparisons; median of ${ROUNDS}): ${bareMs.toFixed(0)} ms ` +
          `(runs ${bareRuns.map((x) => x.toFixed(0)).join(', ')}), matches ${bare.price} price_drop + ${bare.budget} budget_limit`,
        `ratio evaluation / bare SQL: ${(evaluationMs / bareMs).toFixed(2)}; counts agree: ${agree ? 'yes' : 'NO'}`,
        `second evaluation (nothing left to trigger): ${again.ms.toFixed(0)} ms, triggered ${again.value.priceTriggered + again.value.budgetTriggered}`,
        '',
      ].join('\n'),
    );
    if (!agree) process.exitCode = 1;
  } finally {
    await pool?.end();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
