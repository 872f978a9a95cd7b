/**
 * The per-account spend workflow in workflow time (Temporal's time-skipping server, activities as plain
 * functions over an in-memory account whose available balance falls at its burn rate in workflow time):
 * `billing.balance_depleted` at the computed moment, moved by a top-up and by a launch; the grace period and
 * the instances ended exactly at its end (stop on RunPod, terminate elsewhere, with the reason); a top-up during
 * the grace cancels it, one that leaves the balance at or below zero does not restart it, and an unsignalled one
 * still counts at the deadline; `billing.balance_low` once when the runway drops under 24 h, again only after it
 * recovered. The real activity (`reviewAccountSpend` over Postgres) and the wiring are tested on the whole stack
 * in test/billing/depletion-moment.test.ts and test/billing/enforcement.test.ts.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { SpendReview } from '../../src/db/queries/depletion';
import { balanceDepletion } from '../../workflows';
import {
  activityScheduledAtMs,
  createTimeSkippingEnv,
  runTimeMs,
  signalsReceived,
  standInActivities,
  startStandIn,
  type TimeSkippingEnv,
} from '../helpers/time-skipping';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const GRACE_MS = 30 * MINUTE; // the default BALANCE_GRACE_PERIOD: no need to compress it here
const LOW_RUNWAY_MS = 24 * HOUR;
const DOLLAR = 1_000_000;

let ts: TimeSkippingEnv;
beforeAll(async () => {
  ts = await createTimeSkippingEnv();
});
afterAll(async () => {
  await ts?.close();
});

type Live = { id: string; provider: 'runpod' | 'vastai' | 'lambda' };

/**
 * An account in workflow time: `available` micros at `since`, falling at `burn` micros per hour; the episode
 * bookkeeping the real review does in Postgres; the events it wrote, with the workflow time of each.
 */
class Account {
  readonly id = `acct_${Math.random().toString(36).slice(2, 12)}`;
  since = 0;
  depletedAt: number | null = null;
  lowNotified = false;
  events: { type: 'billing.balance_depleted' | 'billing.balance_low'; at: number }[] = [];

  constructor(
    private availableMicros: number,
    public burn: number,
    public live: Live[],
  ) {}

  availableAt(now: number): number {
    return this.availableMicros - Math.round((this.burn * (now - this.since)) / HOUR);
  }

  /** Moves the account at `now` (a top-up, a launch): the fall continues from there at the new burn. */
  change(now: number, credit: number, burn = this.burn): void {
    this.availableMicros = this.availableAt(now) + credit;
    this.since = now;
    this.burn = burn;
  }

  /** When each event of `type` was written, in ms after the workflow's first look (rounded to the second). */
  at(type: Account['events'][number]['type']): number[] {
    return this.events.filter((e) => e.type === type).map((e) => Math.round((e.at - this.firstLook) / 1000) * 1000);
  }

  firstLook = 0;

  /** Workflow time now, for {@link change}. */
  static async now(): Promise<number> {
    return ts.now();
  }

  activities() {
    return {
      reviewAccountSpend: async (
        _accountId: string,
        settings: { graceMs: number; lowRunwayMs: number },
      ): Promise<SpendReview> => {
        const now = activityScheduledAtMs();
        if (this.since === 0) this.since = this.firstLook = now;
        const available = this.availableAt(now);
        const untilZero = this.burn > 0 ? Math.max(0, (available * HOUR) / this.burn) : null;
        if (untilZero !== null && untilZero < settings.lowRunwayMs && !this.lowNotified) {
          this.lowNotified = true;
          this.events.push({ type: 'billing.balance_low', at: now });
        } else if ((untilZero === null || untilZero >= settings.lowRunwayMs) && this.lowNotified) {
          this.lowNotified = false;
        }
        if (available <= 0 && this.depletedAt === null) {
          this.depletedAt = now;
          this.events.push({ type: 'billing.balance_depleted', at: now });
        } else if (available > 0) {
          this.depletedAt = null;
        }
        return {
          balanceMicros: available,
          unchargedMicros: 0,
          availableMicros: available,
          accruingBurnMicros: this.burn,
          liveInstances: this.live.length,
          depletedForMs: this.depletedAt === null ? null : now - this.depletedAt,
          lowNotified: this.lowNotified,
        };
      },
      listLiveManagedInstances: async () => this.live,
    };
  }
}

async function start(taskQueue: string, account: Account): Promise<WorkflowHandle<typeof balanceDepletion>> {
  const handle = await ts.env.client.workflow.start(balanceDepletion, {
    taskQueue,
    workflowId: `balance-depleted-${account.id}`,
    args: [{ accountId: account.id, graceMs: GRACE_MS, lowRunwayMs: LOW_RUNWAY_MS }],
  });
  // A run left waiting (a failed test) would hold the test server's clock for the tests after it.
  ts.afterWorker(() =>
    handle.terminate('test finished').then(
      () => undefined,
      () => undefined,
    ),
  );
  return handle;
}

/** Ends the account's fleet and tells the workflow, which then finishes. */
async function endFleet(account: Account, handle: WorkflowHandle<typeof balanceDepletion>) {
  account.change(await Account.now(), 0, 0);
  account.live = [];
  await handle.signal('spendChanged', { cause: 'instance_ended' });
  return handle.result();
}

const reason = 'prepaid balance depleted: no top-up within the 30 min grace period';

/**
 * Workflow-time moments, each no sooner than expected and at most {@link LAG_MS} later: while a workflow task or
 * an activity is being run, the test server's clock moves in real time (a loaded machine: up to a second or two).
 */
const LAG_MS = 2_000;
function expectMoments(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((at, i) => {
    expect(at).toBeGreaterThanOrEqual(expected[i]!);
    expect(at).toBeLessThanOrEqual(expected[i]! + LAG_MS);
  });
}

describe('balanceDepletion, the per-account spend workflow (time-skipping)', () => {
  it(
    'writes balance_depleted at the moment available reaches zero and ends every live instance when the grace runs ' +
      'out',
    async () => {
      const live: Live[] = [
        { id: 'launch-a', provider: 'runpod' },
        { id: 'launch-b', provider: 'lambda' },
        { id: 'launch-gone', provider: 'vastai' }, // its workflow already finished
      ];
      // $1 at $2/h: zero in 30 minutes.
      const account = new Account(
        1 * DOLLAR,
        2 * DOLLAR,
        live.map((l) => ({ ...l, id: `${l.id}-${Math.random().toString(36).slice(2, 8)}` })),
      );
      await ts.withWorker({ ...account.activities(), ...standInActivities }, async (taskQueue) => {
        const standIns = await Promise.all(account.live.slice(0, 2).map((i) => startStandIn(ts, taskQueue, i.id)));
        const handle = await start(taskQueue, account);

        await ts.env.sleep(50 * MINUTE);
        expectMoments(account.at('billing.balance_depleted'), [30 * MINUTE]);
        // During the grace nothing is ended.
        expect(await signalsReceived(standIns[0]!, 'endInstance')).toEqual([]);

        await ts.env.sleep(15 * MINUTE);
        expect(await signalsReceived(standIns[0]!, 'endInstance')).toEqual([{ action: 'stop', reason }]);
        expect(await signalsReceived(standIns[1]!, 'endInstance')).toEqual([{ action: 'terminate', reason }]);
        const endedAt = (await standIns[0]!.fetchHistory()).events!.find(
          (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'endInstance',
        )!;
        const msOf = (t: { seconds?: unknown; nanos?: number | null }) =>
          Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
        const endedMs = msOf(endedAt.eventTime!);
        // The grace's timer fires at its end to the workflow clock; the end is asked after it (how long after is
        // the machine's speed, not the workflow's decision).
        const firedMs = (await handle.fetchHistory())
          .events!.filter((e) => e.timerFiredEventAttributes && msOf(e.eventTime!) <= endedMs)
          .map((e) => msOf(e.eventTime!))
          .pop()!;
        expect(firedMs - account.firstLook).toBeGreaterThanOrEqual(60 * MINUTE);
        expect(firedMs - account.firstLook).toBeLessThan(60 * MINUTE + 2_000);
        expect(endedMs).toBeGreaterThanOrEqual(firedMs);

        // The launch workflows end their instances and tell it: the run finishes, naming what it ended.
        const asked = standIns.map((h) => h.workflowId);
        expect(await endFleet(account, handle)).toEqual({ outcome: 'instances_ended', endedInstanceIds: asked });
        expect(account.at('billing.balance_depleted')).toHaveLength(1);
      });
    },
  );

  it('moves the depletion moment when a top-up lands and when a launch adds to the burn', async () => {
    const account = new Account(1 * DOLLAR, 2 * DOLLAR, [{ id: 'launch-x', provider: 'vastai' }]);
    await ts.withWorker(account.activities(), async (taskQueue) => {
      const handle = await start(taskQueue, account);
      await ts.env.sleep(10 * MINUTE);
      // A $1.33 top-up at 10 min: $2 left at $2/h, zero at 70 min instead of 30.
      account.change(await Account.now(), 1_333_333);
      await handle.signal('spendChanged', { cause: 'credit' });
      await ts.env.sleep(10 * MINUTE);
      expect(account.at('billing.balance_depleted')).toEqual([]);
      // A launch at 20 min takes the burn to $20/h: $1.67 left, zero at 25 min, before any moment set earlier.
      account.change(await Account.now(), 0, 20 * DOLLAR);
      account.live.push({ id: 'launch-y', provider: 'vastai' });
      await handle.signal('spendChanged', { cause: 'instance_started' });
      await ts.env.sleep(10 * MINUTE);
      expectMoments(account.at('billing.balance_depleted'), [25 * MINUTE]);
      expect(await endFleet(account, handle)).toEqual({ outcome: 'idle', endedInstanceIds: [] });
    });
  });

  it('a top-up during the grace cancels it: nothing is ended, and the watch goes on', async () => {
    const account = new Account(1 * DOLLAR, 2 * DOLLAR, [
      { id: `launch-keep-${Math.random().toString(36).slice(2, 8)}`, provider: 'runpod' },
    ]);
    await ts.withWorker({ ...account.activities(), ...standInActivities }, async (taskQueue) => {
      const standIn = await startStandIn(ts, taskQueue, account.live[0]!.id);
      const handle = await start(taskQueue, account);
      await ts.env.sleep(40 * MINUTE); // depleted at 30, grace until 60
      expect(account.at('billing.balance_depleted')).toHaveLength(1);
      // $5 at 40 min: $4.67 left, zero again at 40 + 140 = 180 min.
      account.change(await Account.now(), 5 * DOLLAR);
      await handle.signal('spendChanged', { cause: 'credit' });
      await ts.env.sleep(60 * MINUTE);
      expect(await signalsReceived(standIn, 'endInstance')).toEqual([]);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      // The watch goes on: the new episode comes at its own moment, with its own full grace.
      await ts.env.sleep(90 * MINUTE); // 190 min
      expectMoments(account.at('billing.balance_depleted'), [30 * MINUTE, 180 * MINUTE]);
      expect(await signalsReceived(standIn, 'endInstance')).toEqual([]);
      await ts.env.sleep(25 * MINUTE); // 215 min: past 180 + 30
      expect(await signalsReceived(standIn, 'endInstance')).toEqual([{ action: 'stop', reason }]);
      await endFleet(account, handle);
    });
  });

  it(
    'a top-up that leaves available at or below zero does not restart the grace; an unsignalled one counts at the ' +
      'deadline',
    async () => {
      const still = new Account(-50 * DOLLAR, 2 * DOLLAR, [
        { id: `launch-s-${Math.random().toString(36).slice(2, 8)}`, provider: 'vastai' },
      ]);
      await ts.withWorker({ ...still.activities(), ...standInActivities }, async (taskQueue) => {
        const standIn = await startStandIn(ts, taskQueue, still.live[0]!.id);
        const handle = await start(taskQueue, still);
        await ts.env.sleep(20 * MINUTE);
        still.change(await Account.now(), 49 * DOLLAR); // topped up, still negative
        await handle.signal('spendChanged', { cause: 'credit' });
        await ts.env.sleep(12 * MINUTE); // 32 min: past the grace counted from 0, not from 20
        expect(await signalsReceived(standIn, 'endInstance')).toEqual([{ action: 'terminate', reason }]);
        expect(await endFleet(still, handle)).toMatchObject({ outcome: 'instances_ended' });
      });

      const lost = new Account(-5, 2 * DOLLAR, [
        { id: `launch-l-${Math.random().toString(36).slice(2, 8)}`, provider: 'vastai' },
      ]);
      await ts.withWorker({ ...lost.activities(), ...standInActivities }, async (taskQueue) => {
        const standIn = await startStandIn(ts, taskQueue, lost.live[0]!.id);
        const handle = await start(taskQueue, lost);
        await ts.env.sleep(5 * MINUTE);
        lost.change(await Account.now(), 10 * DOLLAR); // committed, but the API died before it signalled
        await ts.env.sleep(40 * MINUTE);
        expect(await signalsReceived(standIn, 'endInstance')).toEqual([]);
        expect(await endFleet(lost, handle)).toEqual({ outcome: 'idle', endedInstanceIds: [] });
        expect(await runTimeMs(handle)).toBeGreaterThanOrEqual(45 * MINUTE);
      });
    },
  );

  it('writes balance_low once when the runway drops under 24 h, and again only after it recovered', async () => {
    // $100 at $2/h: 50 h of runway, under 24 h at 26 h.
    const account = new Account(100 * DOLLAR, 2 * DOLLAR, [{ id: 'launch-low', provider: 'lambda' }]);
    await ts.withWorker(account.activities(), async (taskQueue) => {
      const handle = await start(taskQueue, account);
      await ts.env.sleep(30 * HOUR);
      expectMoments(account.at('billing.balance_low'), [26 * HOUR]);
      // $20 at 30 h: $60 left, 30 h of runway (recovered); under 24 h again at 36 h.
      account.change(await Account.now(), 20 * DOLLAR);
      await handle.signal('spendChanged', { cause: 'credit' });
      await ts.env.sleep(10 * HOUR);
      expectMoments(account.at('billing.balance_low'), [26 * HOUR, 36 * HOUR]);
      expect(account.at('billing.balance_depleted')).toEqual([]);
      expect(await endFleet(account, handle)).toEqual({ outcome: 'idle', endedInstanceIds: [] });
    });
  });

  it('finishes at once when the account has nothing live', async () => {
    const account = new Account(10 * DOLLAR, 0, []);
    await ts.withWorker(account.activities(), async (taskQueue) => {
      const handle = await start(taskQueue, account);
      expect(await handle.result()).toEqual({ outcome: 'idle', endedInstanceIds: [] });
      expect(await runTimeMs(handle)).toBeLessThan(MINUTE);
    });
  });
});
