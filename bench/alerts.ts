/**
 * `npm run bench:alerts`: 100,000 active alerts (price_drop and budget_limit, many accounts, GPUs weighted by
 * popularity, thresholds spread below the current prices and above the current spend) are evaluated once
 * after one pricing refresh in which some GPUs got cheaper and new charges landed. Prints the evaluation's
 * time and triggered count beside a bare SQL statement doing the same comparisons and the same writes (each
 * matching alert set to triggered, one `alert.triggered` event per alert, one stop request per running
 * instance of a stop_instances budget) with the least work: a minimal event payload, no locking, no
 * conflict handling. Each side runs on its own fresh copy of the same data, in the same run. Real embedded
 * Postgres; offers come from the provider simulators through the real adapters.
 */
import os from 'node:os';
import { z } from 'zod';
import { Client } from 'pg';
import { createAlertQueries, type EvaluationResult } from '../src/db/queries/alerts';
import { createPricingQueries, type ProviderOutcome } from '../src/db/queries/pricing';
import { createDatabasePool, type Pool } from '../src/db/pool';
import { sql } from '../src/db/sql';
import { toStoredOffer, MAX_OFFER_AGE_MS, type StoredOffer } from '../src/domain/pricing';
import { silentLogger } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import { PROVIDERS, type ProviderId } from '../src/providers/types';
import { simulatorBaseUrls, startSimulators } from '../simulators';
import { median, runBench, startBench } from './harness';

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

/** A charge row as the ledger inserts unnest it: id, account, amount, description, instance, idempotency key. */
type ChargeRow = [string, string, number, string, string, string];
const CHARGE_COLUMN_TYPES = ['text', 'text', 'int8', 'text', 'text', 'text'];

async function insertChunks(pool: Pool, rows: unknown[][], insert: (chunk: unknown[][]) => VoidQuery): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await pool.query(insert(rows.slice(i, i + CHUNK)));
}

async function currentOffers(): Promise<StoredOffer[]> {
  const sims = await startSimulators();
  try {
    const adapters = createProviderAdapters({ ...simulatorBaseUrls(sims), timeoutMs: 10_000, logger: silentLogger });
    const keys: Record<ProviderId, string> = {
      runpod: sims.runpod.createKey(),
      vastai: sims.vastai.createKey(),
      lambda: sims.lambda.createKey(),
    };
    const lists = await Promise.all(PROVIDERS.map((p) => adapters[p].listOffers(keys[p])));
    return lists.flat().map(toStoredOffer);
  } finally {
    await sims.close();
  }
}

async function recordRefresh(pool: Pool, offers: StoredOffer[]): Promise<void> {
  const outcomes = Object.fromEntries(
    PROVIDERS.map((p) => [p, { ok: true, offers: offers.filter((o) => o.provider === p) }]),
  ) as Record<ProviderId, ProviderOutcome>;
  await createPricingQueries(pool).recordRefresh(outcomes, new Date());
}

async function seed(pool: Pool, offers: StoredOffer[]): Promise<{ gpus: string[]; accounts: string[] }> {
  // The lowest available price per GPU before the refresh: price thresholds sit below it.
  const best = new Map<string, number>();
  for (const o of offers)
    if (o.availability > 0) best.set(o.gpuType, Math.min(best.get(o.gpuType) ?? Infinity, o.pricePerHourMicros));
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
  await insertChunks(
    pool,
    accounts.map((id) => [id, 'bench']),
    (c) =>
      sql.typeAlias(
        'void',
      )`INSERT INTO accounts (id, name) SELECT * FROM ${sql.unnest(c as [string, string][], ['text', 'text'])}`,
  );

  // Spend so far this month per account: five charges each.
  const spentBefore = new Map(accounts.map((a) => [a, Math.round(between(0, 800) * 1e6)]));
  const ledger: unknown[][] = [];
  for (const [account, micros] of spentBefore) {
    for (let k = 0; k < 5; k++)
      ledger.push([
        `txn_b${account}_${k}`,
        account,
        -Math.round(micros / 5),
        `charge ${k}`,
        `i_${account}`,
        `before:${k}`,
      ]);
  }
  const insertLedger = (c: unknown[][]) =>
    sql.typeAlias('void')`
      INSERT INTO ledger_entries
        (id, account_id, type, amount_micros, balance_after_micros, description, instance_id, idempotency_key)
      SELECT id, account_id, 'instance_charge', amount, 0, description, instance_id, key
      FROM ${sql.unnest(c as ChargeRow[], CHARGE_COLUMN_TYPES)}
        AS t(id, account_id, amount, description, instance_id, key)`;
  await insertChunks(pool, ledger, insertLedger);

  const alerts: unknown[][] = [];
  const stopAccounts = new Set<string>();
  for (let i = 0; i < ALERTS; i++) {
    const account = pick(accounts);
    if (i < ALERTS * PRICE_SHARE) {
      const gpu = weightedGpu();
      alerts.push([
        `alert_b${i}`,
        account,
        'price_drop',
        'notify',
        gpu,
        Math.max(1, Math.round(best.get(gpu)! * between(0.5, 0.99))),
      ]);
    } else {
      const stop = random() < 0.1;
      if (stop) stopAccounts.add(account);
      alerts.push([
        `alert_b${i}`,
        account,
        'budget_limit',
        stop ? 'stop_instances' : 'notify',
        null,
        spentBefore.get(account)! + Math.round(between(5, 1500) * 1e6),
      ]);
    }
  }
  const alertColumnTypes = ['text', 'text', 'text', 'text', 'text', 'int8'];
  await insertChunks(
    pool,
    alerts,
    (c) =>
      sql.typeAlias('void')`
      INSERT INTO alerts (id, account_id, type, action, gpu_type, threshold_micros)
      SELECT * FROM ${sql.unnest(c as [string, string, string, string, string | null, number][], alertColumnTypes)}`,
  );

  // Accounts with a stop_instances budget run one or two managed instances.
  const instances: unknown[][] = [];
  for (const account of stopAccounts) {
    for (let k = 0; k < 1 + Math.floor(random() * 2); k++) {
      const provider = pick(PROVIDERS);
      instances.push([`launch-${account}-${k}`, account, provider, `${provider}-${account}-${k}`, pick(gpus)]);
    }
  }
  await insertChunks(
    pool,
    instances,
    (c) =>
      sql.typeAlias('void')`
      INSERT INTO instances
        (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type, gpu_count,
         price_per_hour_micros)
      SELECT id, account_id, 'bench', provider, pid, 'bench', 'running', gpu, 1, 1000000
      FROM ${sql.unnest(c as [string, string, string, string, string][], ['text', 'text', 'text', 'text', 'text'])}
        AS t(id, account_id, provider, pid, gpu)`,
  );

  await pool.query(sql.typeAlias('void')`VACUUM ANALYZE`);
  return { gpus, accounts };
}

interface Scenario {
  name: string;
  /** How many GPUs get cheaper at this refresh, and by how much (a factor range). */
  droppedGpus: number;
  drop: [number, number];
  /** New charges per account landing before the evaluation, dollars. */
  charges: [number, number];
}

const SCENARIOS: Scenario[] = [
  {
    name: 'typical refresh: the most popular GPU 5 % cheaper, up to $5 of new charges per account',
    droppedGpus: 1,
    drop: [0.95, 0.95],
    charges: [0, 5],
  },
  {
    name: 'surge: four GPUs 10–30 % cheaper, up to $120 of new charges per account',
    droppedGpus: 4,
    drop: [0.7, 0.9],
    charges: [0, 120],
  },
];

/** What lands before the evaluation: new charges for every account and one pricing refresh (deterministic). */
async function land(
  pool: Pool,
  seeded: { gpus: string[]; accounts: string[] },
  offers: StoredOffer[],
  scenario: Scenario,
): Promise<string[]> {
  const rnd = prng(7);
  const charges = seeded.accounts.map((a) => [
    `txn_n${a}`,
    a,
    -Math.round((scenario.charges[0] + rnd() * (scenario.charges[1] - scenario.charges[0])) * 1e6),
    'new charge',
    `i_${a}`,
    'new',
  ]);
  await insertChunks(
    pool,
    charges,
    (c) =>
      sql.typeAlias('void')`
      INSERT INTO ledger_entries
        (id, account_id, type, amount_micros, balance_after_micros, description, instance_id, idempotency_key)
      SELECT id, account_id, 'instance_charge', amount, 0, description, instance_id, key
      FROM ${sql.unnest(c as ChargeRow[], CHARGE_COLUMN_TYPES)}
        AS t(id, account_id, amount, description, instance_id, key)`,
  );
  // Popular GPUs first (seeding weighted them by catalog order), so a drop reaches many alerts.
  const dropped = seeded.gpus.slice(0, scenario.droppedGpus);
  const factor = new Map(dropped.map((g) => [g, scenario.drop[0] + rnd() * (scenario.drop[1] - scenario.drop[0])]));
  await recordRefresh(
    pool,
    offers.map((o) =>
      factor.has(o.gpuType)
        ? { ...o, pricePerHourMicros: Math.round(o.pricePerHourMicros * factor.get(o.gpuType)!) }
        : o,
    ),
  );
  return dropped;
}

/**
 * The same comparisons and the same writes as the evaluation, in the plainest SQL: what any evaluation must
 * at least pay. The event rows carry the alert id only (the evaluation writes the full alert record).
 */
async function bareWrites(pool: Pool): Promise<{ price: number; budget: number; events: number; stops: number }> {
  return pool.one(sql.type(z.object({ price: z.number(), budget: z.number(), events: z.number(), stops: z.number() }))`
    WITH best AS (
      SELECT gpu_type, min(price_per_hour_micros) AS price FROM pricing_offers
      WHERE availability > 0 AND fetched_at > now() - make_interval(secs => ${MAX_OFFER_AGE_MS / 1000})
      GROUP BY gpu_type),
    spend AS (
      SELECT account_id, sum(-amount_micros) AS micros FROM ledger_entries
      WHERE type = 'instance_charge' AND created_at >= date_trunc('month', now(), 'UTC') GROUP BY account_id),
    price_hits AS (
      UPDATE alerts a SET status = 'triggered', triggered_at = now() FROM best b
      WHERE a.status = 'active' AND a.type = 'price_drop' AND a.gpu_type = b.gpu_type AND a.threshold_micros >= b.price
      RETURNING a.id, a.account_id, a.action),
    budget_hits AS (
      UPDATE alerts a SET status = 'triggered', triggered_at = now() FROM spend s
      WHERE a.status = 'active' AND a.type = 'budget_limit' AND a.account_id = s.account_id
        AND s.micros >= a.threshold_micros
      RETURNING a.id, a.account_id, a.action),
    hits AS (SELECT * FROM price_hits UNION ALL SELECT * FROM budget_hits),
    written_events AS (
      INSERT INTO events (id, account_id, type, data, dedupe_key)
      SELECT 'evt_' || h.id, h.account_id, 'alert.triggered', jsonb_build_object('alert', h.id),
        'alert.triggered:' || h.id
      FROM hits h
      RETURNING 1),
    stops AS (
      INSERT INTO alert_stop_requests (alert_id, instance_id, account_id, action, reason)
      SELECT h.id, i.id, i.account_id, 'stop', 'budget'
      FROM hits h JOIN instances i ON i.account_id = h.account_id AND i.status = 'running'
      WHERE h.action = 'stop_instances'
      RETURNING 1)
    SELECT (SELECT count(*) FROM price_hits)::int8 AS price, (SELECT count(*) FROM budget_hits)::int8 AS budget,
      (SELECT count(*) FROM written_events)::int8 AS events, (SELECT count(*) FROM stops)::int8 AS stops`);
}

/** The same two comparisons, read only: the warm-up of every copy (its pages into the cache). */
async function bareCount(pool: Pool): Promise<{ price: number; budget: number }> {
  return pool.one(sql.type(z.object({ price: z.number(), budget: z.number() }))`
    WITH best AS (
      SELECT gpu_type, min(price_per_hour_micros) AS price FROM pricing_offers
      WHERE availability > 0 AND fetched_at > now() - make_interval(secs => ${MAX_OFFER_AGE_MS / 1000})
      GROUP BY gpu_type),
    spend AS (
      SELECT account_id, sum(-amount_micros) AS micros FROM ledger_entries
      WHERE type = 'instance_charge' AND created_at >= date_trunc('month', now(), 'UTC') GROUP BY account_id)
    SELECT
      (SELECT count(*) FROM alerts a JOIN best b ON b.gpu_type = a.gpu_type
        WHERE a.status = 'active' AND a.type = 'price_drop' AND a.threshold_micros >= b.price)::int8 AS price,
      (SELECT count(*) FROM alerts a JOIN spend s ON s.account_id = a.account_id
        WHERE a.status = 'active' AND a.type = 'budget_limit' AND s.micros >= a.threshold_micros)::int8 AS budget`);
}

async function copyDatabase(adminUrl: string, template: string, name: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await client.end();
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, value };
}

async function main(): Promise<void> {
  const stack = await startBench('alerts');
  const pg = await stack.postgres();
  let pool: Pool | undefined;
  try {
    // Seeded once into a template; every round evaluates a fresh copy, so each one finds the same data.
    pool = await createDatabasePool(await stack.migrated('bench_template'), { maximumPoolSize: 4 });
    const offers = await currentOffers();
    await recordRefresh(pool, offers);
    const seeding = await timed(() => seed(pool!, offers));
    await pool.end();
    pool = undefined;
    const lines = [
      `${ALERTS} active alerts (${Math.round(PRICE_SHARE * 100)}% price_drop over ${seeding.value.gpus.length} GPUs ` +
        `weighted by popularity, the rest budget_limit, 10% of those stop_instances), ${ACCOUNTS} accounts, ` +
        `${ROUNDS} rounds per scenario on fresh copies (medians); ` +
        `seeded in ${(seeding.ms / 1000).toFixed(1)} s`,
    ];

    let copies = 0;
    for (const scenario of SCENARIOS) {
      const bareRuns: number[] = [];
      const evaluationRuns: number[] = [];
      const againRuns: number[] = [];
      let bare = { price: 0, budget: 0 };
      let r = undefined as EvaluationResult | undefined;
      let events = 0;
      let dropped: string[] = [];
      let bareStops = 0;
      // Each side on its own fresh copy; which one goes first alternates, so drift hits both.
      const fresh = async <T>(fn: (pool: Pool) => Promise<T>): Promise<T> => {
        const name = `bench_${copies++}`;
        await copyDatabase(pg.url(), 'bench_template', name);
        const p = await createDatabasePool(pg.url(name), { maximumPoolSize: 4 });
        pool = p;
        try {
          dropped = await land(p, seeding.value, offers, scenario);
          await bareCount(p); // warm-up: the copy's pages into the cache
          return await fn(p);
        } finally {
          await p.end();
          pool = undefined;
        }
      };
      const runBare = () =>
        fresh(async (p) => {
          const b = await timed(() => bareWrites(p));
          bareRuns.push(b.ms);
          bare = b.value;
          bareStops = b.value.stops;
        });
      const runEvaluation = () =>
        fresh(async (p) => {
          const e = await timed(() => createAlertQueries(p).evaluate({ price: true, budget: true }));
          evaluationRuns.push(e.ms);
          r = e.value;
          events = await p.oneFirst(
            sql.type(
              z.object({ n: z.number() }),
            )`SELECT count(*)::int8 AS n FROM events WHERE type = 'alert.triggered'`,
          );
          againRuns.push((await timed(() => createAlertQueries(p).evaluate({ price: true, budget: true }))).ms);
        });
      for (let i = 0; i < ROUNDS; i++) {
        if (i % 2 === 0) {
          await runBare();
          await runEvaluation();
        } else {
          await runEvaluation();
          await runBare();
        }
      }
      if (!r) throw new Error('no rounds');
      const evaluationMs = median(evaluationRuns);
      const bareMs = median(bareRuns);
      const agree =
        r.priceTriggered === bare.price &&
        r.budgetTriggered === bare.budget &&
        events === r.priceTriggered + r.budgetTriggered &&
        r.stopRequests === bareStops;
      if (!agree) process.exitCode = 1;
      const runs = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
      lines.push(
        `${scenario.name} (${dropped.join(', ')}):`,
        `  evaluation: ${evaluationMs.toFixed(0)} ms (runs ${runs(evaluationRuns)}); ` +
          `triggered ${r.priceTriggered} price_drop + ` +
          `${r.budgetTriggered} budget_limit, ${events} alert.triggered events, ${r.stopRequests} stop requests`,
        `  bare SQL, same writes: ${bareMs.toFixed(0)} ms (runs ${runs(bareRuns)}); ` +
          `triggered ${bare.price} price_drop + ${bare.budget} budget_limit, ${bareStops} stop requests` +
          (agree ? '' : '  <-- COUNTS DISAGREE'),
        `  ratio evaluation / bare SQL: ${(evaluationMs / bareMs).toFixed(2)}; ` +
          `evaluating again right after: ${median(againRuns).toFixed(0)} ms, triggers nothing`,
      );
    }
    lines.push(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await pool?.end();
  }
}

runBench(main);
