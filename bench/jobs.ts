/**
 * `npm run bench:jobs`: BENCH_JOBS (100) jobs through the API on a local stack (the real Temporal dev server, a
 * worker, Postgres, the provider simulators running the real wrapper with `sh`). Commands sleep 5-30 s; every
 * fifth job runs on Vast spot and is preempted once through the simulator's HTTP knob
 * (`POST /_sim/instances/{id}/preempt`), its next attempt on-demand; one job in ten exits 3. It prints, from
 * the database and the API once every job ended:
 * - exit report → the instance's end as the provider confirmed it (p50, p95; target p50 ≤ 2 s);
 * - seconds paid after the exit per job (metered_through − reported_at; an attempt never metered fails the run);
 * - attempts per preempted job;
 * - cost exactness: jobs whose `cost` equals the ledger's charges for their attempts' instances (must be 100 %);
 * - instances left at the providers (must be 0).
 * Observation settings are the service's defaults (instances looked at every 60 s, spot every 10 s).
 */
import { z } from 'zod';
import { createAccountQueries } from '../src/db/queries/accounts';
import { createPricingQueries, type ProviderOutcome } from '../src/db/queries/pricing';
import { createProviderKeyQueries } from '../src/db/queries/provider-keys';
import { PricingCache } from '../src/db/pricing-cache';
import { DEFAULT_LIMITS } from '../src/domain/limits';
import { toStoredOffer } from '../src/domain/pricing';
import { createApp } from '../src/http/app';
import { sql } from '../src/db/sql';
import { silentLogger } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import { createProviderCredentials } from '../src/providers/provider-credentials';
import { PROVIDERS, type ProviderId } from '../src/providers/types';
import { simulatorBaseUrls } from '../simulators';
import { pct, runBench, startBench } from './harness';

const JOBS = Number(process.env.BENCH_JOBS ?? 100);
/** How long the bench waits for every job to end. */
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_MS ?? 15 * 60_000);
const GPU = 'rtx-4090';

interface Plan {
  i: number;
  provider: ProviderId;
  preempt: boolean;
  seconds: number;
  exitCode: number;
}

/** Deterministic: every fifth job preempted (Vast spot), one in ten exits 3, commands of 5-30 s. */
function plan(i: number): Plan {
  const preempt = i % 5 === 0;
  const spread = 5 + ((i * 11) % 26);
  return {
    i,
    provider: preempt || i % 2 === 0 ? 'vastai' : 'runpod',
    preempt,
    // A preempted job's command outlasts the wait to see its first attempt running (longer on a loaded machine).
    seconds: preempt ? Math.max(spread, 25) : spread,
    exitCode: i % 10 === 3 ? 3 : 0,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const stack = await startBench('jobs');
  const { pool } = await stack.database('bench', 20);
  const { client } = await stack.temporal();
  const sims = await stack.simulators({ bootDelayMs: 1_000 });
  const adapters = createProviderAdapters({ ...simulatorBaseUrls(sims), timeoutMs: 10_000, logger: silentLogger });
  const vault = stack.vault;
  const taskQueue = 'bench-jobs';
  const limits = { ...DEFAULT_LIMITS, live_instances: 1_000_000 };
  const app = createApp({
    pool,
    logger: silentLogger,
    temporal: { client, taskQueue },
    adapters,
    vault,
    pricing: new PricingCache(createPricingQueries(pool), silentLogger),
    launchTiming: { pollIntervalMs: 60_000, spotPollIntervalMs: 10_000, meterIntervalMs: 3_600_000 },
    rateLimit: { burst: 100_000, perMinute: 1_000_000 },
    limits,
  });
  // The wrapper on each simulated instance reports its exit here.
  const { url: api } = await stack.listen(app);
  await stack.worker(taskQueue, {
    pool,
    logger: silentLogger,
    adapters,
    vault,
    credentials: createProviderCredentials(createProviderKeyQueries(pool), vault),
    pricingKeys: {},
    limits,
    temporal: { client, taskQueue },
    jobs: { publicBaseUrl: api, vault },
  });
  const outcomes = {} as Record<ProviderId, ProviderOutcome>;
  for (const p of PROVIDERS)
    outcomes[p] = { ok: true, offers: (await adapters[p].listOffers(sims[p].createKey())).map(toStoredOffer) };
  await createPricingQueries(pool).recordRefresh(outcomes, new Date());

  const { account, apiKey } = await createAccountQueries(pool).insertAccountWithKey('bench jobs', {
    startingCreditMicros: 10_000_000_000,
  });
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const simKeys = {} as Record<'runpod' | 'vastai', string>;
  for (const provider of ['runpod', 'vastai'] as const) {
    simKeys[provider] = sims[provider].createKey();
    await call('POST', '/v1/settings/providers', { provider, api_key: simKeys[provider] });
  }

  const plans = Array.from({ length: JOBS }, (_, i) => plan(i));
  const started = Date.now();
  const jobIds: string[] = [];
  // Submitted eight at a time, as a few clients would.
  for (let k = 0; k < plans.length; k += 8) {
    const batch = plans.slice(k, k + 8);
    const ids = await Promise.all(
      batch.map(async (p) => {
        const job = await call('POST', '/v1/jobs', {
          name: `bench-${p.i}`,
          gpu: GPU,
          template: 'pytorch',
          command: `echo "job ${p.i}"; sleep ${p.seconds}; exit ${p.exitCode}`,
          providers: [p.provider],
          // auto: spot first, on-demand once on_demand_after_preemptions is reached.
          spot_policy: p.preempt ? 'auto' : 'on-demand',
          retry: p.preempt
            ? { on: ['preemption'], max_attempts: 3, within: '1h', on_demand_after_preemptions: 1 }
            : undefined,
        });
        return job.id as string;
      }),
    );
    jobIds.push(...ids);
  }
  console.log(`${JOBS} jobs submitted in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // Each preempted job's first attempt is taken away once it runs, through the Vast simulator's HTTP knob.
  const vastOrigin = new URL(sims.vastai.baseUrl).origin;
  const planned = plans.filter((p) => p.preempt).map((p) => jobIds[p.i]!);
  const deadline = started + DEADLINE_MS;
  // A job whose command ended before the knob reached its instance (404) was not preempted: counted apart.
  const missed: string[] = [];
  await Promise.all(
    planned.map(async (jobId) => {
      for (;;) {
        if (Date.now() > deadline) throw new Error(`job ${jobId}: its first attempt never ran`);
        const row = await pool.maybeOne(
          sql.type(z.object({ instance_id: z.string().nullable(), started: z.boolean(), ended: z.boolean() }))`
            SELECT instance_id, started_at IS NOT NULL AS started, ended_at IS NOT NULL AS ended
            FROM job_attempts WHERE job_id = ${jobId} AND n = 1`,
        );
        // Ended before it was seen running (a loaded machine): nothing left to preempt.
        if (row?.ended) {
          missed.push(jobId);
          return;
        }
        if (row?.started && row.instance_id) {
          const res = await fetch(`${vastOrigin}/_sim/instances/${row.instance_id}/preempt`, { method: 'POST' });
          if (res.status === 404) missed.push(jobId);
          else if (res.status !== 204) throw new Error(`preempt ${row.instance_id} answered ${res.status}`);
          return;
        }
        await sleep(250);
      }
    }),
  );

  for (;;) {
    const ended = await pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM jobs
      WHERE account_id = ${account.id} AND status IN ('succeeded', 'failed', 'cancelled')`);
    if (ended === JOBS) break;
    if (Date.now() > deadline) {
      const open = await pool.any(sql.type(z.object({ id: z.string(), status: z.string(), attempts: z.string() }))`
        SELECT j.id, j.status, coalesce(string_agg(a.n || ':' || coalesce(a.end_reason, 'open'), ' '), '') AS attempts
        FROM jobs j LEFT JOIN job_attempts a ON a.job_id = j.id
        WHERE j.account_id = ${account.id} AND j.status NOT IN ('succeeded', 'failed', 'cancelled') GROUP BY j.id`);
      throw new Error(`${JOBS - ended} jobs still running after ${DEADLINE_MS / 1000} s: ${JSON.stringify(open)}`);
    }
    await sleep(1_000);
  }
  const wallSeconds = (Date.now() - started) / 1000;
  // A preemption that reached an instance whose command had already reported ends nothing: only jobs with an
  // attempt ended `preempted` count as preempted.
  const preempted = planned.filter((id) => !missed.includes(id));

  // Milliseconds since the epoch, so nothing depends on how the pool parses timestamps.
  const ms = z.number().nullable();
  const attempts = await pool.any(
    sql.type(
      z.object({
        job_id: z.string(),
        instance_id: z.string().nullable(),
        end_reason: z.string().nullable(),
        reported_at: ms,
        ended_at: ms,
        metered_through: ms,
      }),
    )`
    SELECT a.job_id, a.instance_id, a.end_reason, (extract(epoch FROM a.reported_at) * 1000)::float8 AS reported_at,
           (extract(epoch FROM i.ended_at) * 1000)::float8 AS ended_at,
           (extract(epoch FROM i.metered_through) * 1000)::float8 AS metered_through
    FROM job_attempts a JOIN instances i ON i.id = a.instance_row_id
    WHERE a.account_id = ${account.id} ORDER BY a.job_id, a.n`,
  );
  const reported = attempts.filter((a) => a.reported_at !== null && a.ended_at !== null && a.metered_through !== null);
  // A command that reported its exit is charged even when its instance was never seen running (docs/jobs.md):
  // an attempt that reported and was never metered is a fault, and fails the run.
  const neverMetered = attempts.filter((a) => a.reported_at !== null && a.metered_through === null).length;
  const exitToEnd = reported.map((a) => (a.ended_at! - a.reported_at!) / 1000);
  const paidAfterExit = reported.map((a) => (a.metered_through! - a.reported_at!) / 1000);
  const attemptsOf = (jobId: string) => attempts.filter((a) => a.job_id === jobId);
  const wasPreempted = (id: string) => attemptsOf(id).some((a) => a.end_reason === 'preempted');
  const preemptedAttempts = preempted.filter(wasPreempted).map((id) => attemptsOf(id).length);
  const preemptedEnds = preempted.map((id) =>
    attemptsOf(id)
      .map((a) => a.end_reason)
      .join('→'),
  );

  let exact = 0;
  const statuses = new Map<string, number>();
  const wrongOutcome: string[] = [];
  for (const p of plans) {
    const jobId = jobIds[p.i]!;
    const job = (await call('GET', `/v1/jobs/${jobId}`)) as {
      status: string;
      exit_code: number | null;
      error: string | null;
      cost: number;
    };
    statuses.set(job.status, (statuses.get(job.status) ?? 0) + 1);
    const expected = p.exitCode === 0 ? 'succeeded' : 'failed';
    if (job.status !== expected || job.exit_code !== p.exitCode)
      wrongOutcome.push(`${jobId} ${job.status} (${job.error})`);
    const ids = attemptsOf(jobId)
      .map((a) => a.instance_id)
      .filter((x): x is string => x !== null);
    const ledgerMicros = await pool.oneFirst(sql.type(z.object({ micros: z.number() }))`
      SELECT coalesce(-sum(amount_micros), 0)::float8 AS micros FROM ledger_entries
      WHERE account_id = ${account.id} AND type = 'instance_charge' AND instance_id = ANY(${sql.array(ids, 'text')})`);
    if (Math.round(job.cost * 1e6) === ledgerMicros) exact++;
  }
  const left =
    sims.runpod.control.instances(simKeys.runpod).length + sims.vastai.control.instances(simKeys.vastai).length;

  const s = (x: number) => `${x.toFixed(2)} s`;
  console.log(
    [
      `jobs: ${JOBS} (${preempted.length} preempted through the knob` +
        (missed.length ? ` and ${missed.length} ended before the preemption reached them` : '') +
        ', ' +
        `${plans.filter((p) => p.exitCode !== 0).length} exiting 3), ` +
        `all ended in ${wallSeconds.toFixed(0)} s; statuses ${JSON.stringify(Object.fromEntries(statuses))}` +
        (wrongOutcome.length ? `; UNEXPECTED ${wrongOutcome.join(', ')}` : ''),
      `exit report → provider's end: p50 ${s(pct(exitToEnd, 50))}, p95 ${s(pct(exitToEnd, 95))}, ` +
        `max ${s(pct(exitToEnd, 100))} (${exitToEnd.length} reports; target p50 ≤ 2 s)` +
        (neverMetered ? `; ${neverMetered} reported but NEVER METERED` : ''),
      `paid after the exit per job: p50 ${s(pct(paidAfterExit, 50))}, p95 ${s(pct(paidAfterExit, 95))}, ` +
        `max ${s(pct(paidAfterExit, 100))}`,
      `attempts per preempted job: mean ` +
        `${(preemptedAttempts.reduce((a, b) => a + b, 0) / Math.max(1, preemptedAttempts.length)).toFixed(2)} ` +
        `over ${preemptedAttempts.length} jobs (${[...new Set(preemptedEnds)].join(', ')}); ` +
        `${preempted.length - preemptedAttempts.length} preempted after their exit report`,
      `cost exactness against the ledger: ${exact}/${JOBS} (${((100 * exact) / JOBS).toFixed(1)} %)`,
      `instances left at the providers: ${left}`,
    ].join('\n'),
  );
  if (exact !== JOBS || left !== 0 || neverMetered || wrongOutcome.length)
    throw new Error('a job was charged wrongly or left behind');
}

runBench(main);
