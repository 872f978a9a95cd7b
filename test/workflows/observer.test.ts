/**
 * The (account, provider) observer's intervals in workflow time (Temporal's time-skipping server, the round
 * activity as a plain function): looks 1 s, 2 s, … up to the boot maximum while something boots, the spot
 * interval while a spot instance runs, the steady interval otherwise; a failed round waits twice as long,
 * doubling up to the maximum, never less than a 429's Retry-After, and one good round restores the interval;
 * it ends after a round with nothing left to watch, and continues as new with its counts carried over. What
 * the provider is actually asked, and what the launch workflows do with the signals, stays end to end
 * (test/compute/observation.test.ts).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { observeProviderInstances } from '../../workflows';
import type { FailureType } from '../../workflows/contracts/failures';
import { activityScheduledAtMs, createTimeSkippingEnv, type TimeSkippingEnv } from '../helpers/time-skipping';

const SECOND = 1000;
const STEADY_MS = 60 * SECOND; // INSTANCE_OBSERVE_INTERVAL
const SPOT_MS = 10 * SECOND; // INSTANCE_OBSERVE_SPOT_INTERVAL
const BOOT_MS = 3 * SECOND;
const MAX_BACKOFF_MS = 10 * 60 * SECOND;

let ts: TimeSkippingEnv;
beforeAll(async () => {
  ts = await createTimeSkippingEnv();
});
afterAll(async () => {
  await ts?.close();
});

interface Round {
  booting?: boolean;
  spotRunning?: boolean;
  failure?: { kind: FailureType; message: string; retryAfterMs?: number };
  /**
   * Nothing left to watch: the observer ends after this round (unless a launch is between its intent and its create).
   */
  empty?: boolean;
  /** A live row without a provider id yet (a launch being created). */
  launching?: boolean;
}

/** The round activity answering from a script, recording when each round ran (in workflow time). */
function scripted(rounds: Round[]) {
  const at: number[] = [];
  return {
    at,
    activities: {
      observeAccountProvider: async () => {
        const round = rounds[at.length] ?? { empty: true };
        at.push(activityScheduledAtMs());
        return {
          watchedIds: round.empty ? [] : ['launch-acct_x-1'],
          booting: round.booting ?? false,
          ...(round.launching ? { launching: true } : {}),
          spotRunning: round.spotRunning ?? false,
          changes: [],
          ...(round.failure ? { failure: round.failure } : {}),
          providerCalls: 1,
        };
      },
    },
  };
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];
const eventMs = (e: HistoryEvent) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);

/**
 * How long the workflow waited between consecutive rounds: the timers that fired between one round's activity
 * and the next, from the history (rounded to the second). Not the rounds' own times: those also hold how long
 * this machine took to run the round and the workflow tasks around it (real time even on the time-skipping
 * server), which on a loaded machine moved a 1 s gap past the rounding.
 */
function waitsBetweenRounds(events: HistoryEvent[]): number[] {
  const waits: number[] = [];
  const timerStartedMs = new Map<string, number>();
  let waited = 0;
  let rounds = 0;
  for (const e of events) {
    if (e.activityTaskScheduledEventAttributes) {
      if (rounds++ > 0) waits.push(Math.round(waited / SECOND) * SECOND);
      waited = 0;
    } else if (e.timerStartedEventAttributes) {
      timerStartedMs.set(e.timerStartedEventAttributes.timerId!, eventMs(e));
    } else if (e.timerFiredEventAttributes) {
      waited += eventMs(e) - timerStartedMs.get(e.timerFiredEventAttributes.timerId!)!;
    }
  }
  return waits;
}

async function observe(rounds: Round[], extra: { continueAsNewAfter?: number } = {}) {
  const script = scripted(rounds);
  const status = await ts.withWorker(script.activities, async (taskQueue) => {
    const workflowId = `observe-acct_${Math.random().toString(36).slice(2, 10)}-runpod`;
    const handle = await ts.env.client.workflow.start(observeProviderInstances, {
      taskQueue,
      workflowId,
      args: [
        {
          accountId: 'acct_x',
          provider: 'runpod',
          steadyMs: STEADY_MS,
          spotMs: SPOT_MS,
          bootMs: BOOT_MS,
          maxBackoffMs: MAX_BACKOFF_MS,
          ...extra,
        },
      ],
    });
    await handle.result(); // follows continue-as-new to the last run
    const firstRun = await ts.env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId).fetchHistory();
    return {
      firstRunId: handle.firstExecutionRunId,
      firstRunWaits: waitsBetweenRounds(firstRun.events ?? []),
      lastRun: await ts.env.client.workflow.getHandle(workflowId).describe(),
    };
  });
  const { firstRunWaits, ...rest } = status;
  return { gaps: firstRunWaits, rounds: script.at.length, ...rest };
}

describe('observeProviderInstances (time-skipping)', () => {
  it(
    'looks 1 s, 2 s, then every boot maximum while booting, ' + 'then the spot interval, then the steady one, and ends',
    async () => {
      const { gaps: g, rounds } = await observe([
        { booting: true },
        { booting: true },
        { booting: true },
        { booting: true },
        { spotRunning: true },
        { spotRunning: true },
        {},
        {},
        { empty: true },
      ]);
      expect(rounds).toBe(9);
      expect(g).toEqual([1, 2, 3, 3].map((s) => s * SECOND).concat([SPOT_MS, SPOT_MS, STEADY_MS, STEADY_MS]));
    },
  );

  it(
    'does not end while a launch is being created (a row without a provider id), ' + 'and looks again at the boot pace',
    async () => {
      // The launch's own word may not come (a process tells an observer at most once per wake gap): the round's
      // rows are what keeps it. Without `launching` the first round would end it.
      const { gaps: g, rounds } = await observe([
        { empty: true, launching: true, booting: true },
        { booting: true },
        { empty: true },
      ]);
      expect(rounds).toBe(3);
      expect(g).toEqual([1 * SECOND, 2 * SECOND]);
    },
  );

  it(
    'backs off after failures (double, at least Retry-After, ' + 'at most the maximum) and one good round restores it',
    async () => {
      const down = { kind: 'provider_unavailable' as const, message: 'HTTP 503' };
      const { gaps: g } = await observe([
        {},
        { failure: down }, // 2 × steady
        { failure: down }, // doubled
        // doubled: 480 s > 400 s
        { failure: { kind: 'provider_rate_limited', message: '429', retryAfterMs: 400 * SECOND } },
        { failure: down }, // capped at 10 min
        { failure: down },
        {}, // recovered: steady again
        {},
        { empty: true },
      ]);
      expect(g).toEqual([
        STEADY_MS,
        2 * STEADY_MS,
        4 * STEADY_MS,
        8 * STEADY_MS,
        MAX_BACKOFF_MS,
        MAX_BACKOFF_MS,
        STEADY_MS,
        STEADY_MS,
      ]);
    },
  );

  it("waits at least a 429's Retry-After even on the first failure", async () => {
    const { gaps: g } = await observe([
      { spotRunning: true, failure: { kind: 'provider_rate_limited', message: '429', retryAfterMs: 90 * SECOND } },
      { spotRunning: true },
      { empty: true },
    ]);
    expect(g).toEqual([90 * SECOND, SPOT_MS]);
  });

  it('continues as new after the configured rounds and keeps its counts', async () => {
    const { rounds, firstRunId, lastRun } = await observe(
      Array.from({ length: 7 }, () => ({})).concat([{ empty: true }]),
      { continueAsNewAfter: 3 },
    );
    expect(rounds).toBe(8);
    expect(lastRun.runId).not.toBe(firstRunId);
    expect(lastRun.status.name).toBe('COMPLETED');
  });
});
