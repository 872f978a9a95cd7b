/**
 * `npm run bench:spend`: launch admission under contention. 8 clients admit launches of ONE account as fast as
 * they can, through the guarded path (`admitLaunch`: one statement, `admit_launch`, takes the account's
 * balance-row lock, counts the fleet's burn and uncharged usage, checks the key and writes the reservation row;
 * admissions of the account arriving meanwhile go together in one statement and one commit) and through the
 * path it replaced (read the balance, compare with this launch's first hour, write the intent row: no lock, no
 * fleet), alternating in slices within one run on one embedded Postgres, and prints admissions per second of
 * each and their ratio (target ≥ 0.8×). Then correctness: a balance that covers exactly K launches, 8 clients
 * on two pools (two API processes: two queues, one lock) asking 3K times: the guarded path admits exactly K,
 * the old one (for comparison) admits what it admits.
 *
 * This measures the admission step itself (what the guard adds to a launch), not the provider create or the
 * workflow start behind it (bench:launch), which the guard leaves alone.
 */
import os from 'node:os';
import { admitLaunch, type LaunchIntent } from '../src/db/queries/admission';
import { createAccountQueries } from '../src/db/queries/accounts';
import { createInstanceQueries } from '../src/db/queries/instances';
import { createLedgerQueries } from '../src/db/queries/ledger';
import type { Pool } from '../src/db/pool';
import { sql } from '../src/db/sql';
import { runBench, startBench } from './harness';

const CLIENTS = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const SLICE_MS = 1_000;
const PRICE_MICROS = 400_000; // $0.40/h
const WINDOW_MS = 3_600_000;

function intent(accountId: string, n: string): LaunchIntent {
  return {
    id: `launch-${accountId}-${n}`,
    accountId,
    requestHash: 'bench',
    provider: 'vastai',
    providerName: `bench-${n}`,
    name: `bench-${n}`,
    gpuType: 'rtx-4090',
    gpuCount: 1,
    spot: false,
    region: null,
    dockerImage: null,
    warnings: [],
  };
}

type Admit = (accountId: string, n: string) => Promise<boolean>;

function guarded(pool: Pool): Admit {
  return async (accountId, n) =>
    (await admitLaunch(pool, { intent: intent(accountId, n), quotePerHourMicros: PRICE_MICROS, windowMs: WINDOW_MS }))
      .outcome === 'admitted';
}

/** What launches did before: the balance against this launch's first hour, then the intent row; no lock. */
function unguarded(pool: Pool): Admit {
  const ledger = createLedgerQueries(pool);
  const instances = createInstanceQueries(pool);
  return async (accountId, n) => {
    const i = intent(accountId, n);
    if (await instances.findById(i.id)) return true;
    if ((await ledger.getBalance(accountId)) < PRICE_MICROS) return false;
    await instances.insertIntent({ ...i, region: null, dockerImage: null });
    return true;
  };
}

async function run(admit: Admit, accountId: string, ms: number, tag: string): Promise<number> {
  const until = Date.now() + ms;
  let admitted = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let k = 0; Date.now() < until; k++) {
        if (await admit(accountId, `${tag}-${c}-${k}`)) admitted++;
      }
    }),
  );
  return admitted;
}

async function main(): Promise<void> {
  const stack = await startBench('spend');
  const { url, pool } = await stack.database('bench', 20);
  const otherPool = await stack.pool(url, 10);
  const accounts = createAccountQueries(pool);
  // Throughput: balances large enough that every launch is admitted; a fresh account per path.
  const rich = async () =>
    (await accounts.insertAccountWithKey('bench', { startingCreditMicros: 1_000_000_000_000 })).account.id;
  const paths = {
    guarded: { admit: guarded(pool), account: await rich(), admitted: 0, ms: 0 },
    unguarded: { admit: unguarded(pool), account: await rich(), admitted: 0, ms: 0 },
  };
  await run(paths.guarded.admit, paths.guarded.account, 500, 'warm');
  await run(paths.unguarded.admit, paths.unguarded.account, 500, 'warm');
  for (let slice = 0; slice * SLICE_MS < SECONDS * 1000; slice++) {
    const order = slice % 2 === 0 ? (['guarded', 'unguarded'] as const) : (['unguarded', 'guarded'] as const);
    for (const name of order) {
      const p = paths[name];
      // A realistic fleet, not every launch of the run: earlier slices' instances have ended.
      await pool.query(
        sql.typeAlias(
          'void',
        )`UPDATE instances SET status = 'terminated' WHERE account_id = ${p.account} AND status = 'provisioning'`,
      );
      p.admitted += await run(p.admit, p.account, SLICE_MS / 2, `s${slice}`);
      p.ms += SLICE_MS / 2;
    }
  }
  const rate = (p: { admitted: number; ms: number }) => p.admitted / (p.ms / 1000);
  const ratio = rate(paths.guarded) / rate(paths.unguarded);

  // Correctness: exactly K admitted by the guarded path however the clients race.
  const K = 12;
  const poor = async () =>
    (await accounts.insertAccountWithKey('bench', { startingCreditMicros: K * PRICE_MICROS })).account.id;
  const racing = async (admit: Admit, accountId: string) => {
    let admitted = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let k = 0; k < Math.ceil((3 * K) / CLIENTS); k++) if (await admit(accountId, `race-${c}-${k}`)) admitted++;
      }),
    );
    return admitted;
  };
  // Clients on two pools, as two API processes would be: batches of each decided under the one lock.
  const guardedOther = guarded(otherPool);
  const twoProcesses: Admit = (accountId, n) =>
    (Number(n.split('-')[1]) % 2 === 0 ? paths.guarded.admit : guardedOther)(accountId, n);
  const guardedRace = await racing(twoProcesses, await poor());
  const unguardedRace = await racing(paths.unguarded.admit, await poor());

  const fmt = (x: number) => x.toFixed(1);
  process.stdout.write(
    [
      `launch admission, one account, ${CLIENTS} concurrent clients, ` +
        `alternating ${SLICE_MS / 2} ms slices, ${SECONDS / 2}s each`,
      `guarded (admitLaunch: one statement under lock)   ${fmt(rate(paths.guarded)).padStart(7)} admissions/s ` +
        `(${paths.guarded.admitted})`,
      `unguarded (balance vs first hour, no lock)         ${fmt(rate(paths.unguarded)).padStart(7)} admissions/s ` +
        `(${paths.unguarded.admitted})`,
      `ratio guarded / unguarded: ${ratio.toFixed(2)}× (target ≥ 0.80×)`,
      `correctness: balance for exactly ${K} launches at $0.40/h, ${CLIENTS} clients on 2 pools ` +
        `asking ${Math.ceil((3 * K) / CLIENTS) * CLIENTS} times: ` +
        `guarded admitted ${guardedRace} (${guardedRace === K ? 'correct' : 'WRONG'}), ` +
        `unguarded admitted ${unguardedRace}`,
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      '',
    ].join('\n'),
  );
  if (guardedRace !== K) process.exitCode = 1;
}

runBench(main);
