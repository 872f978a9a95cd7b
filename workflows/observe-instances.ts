import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  observeNowSignal,
  observerStatusQuery,
  providerObservedSignal,
  WAKE_GAP_MS,
  watchInstanceSignal,
  type ObserveNowRequest,
  type ObserverInput,
  type ObserverStatus,
} from './contracts/observation';

/** Marks runs that space the rounds new instances ask for (runs started before replay without the timer). */
const WAKE_GAP_PATCH = 'observer-wake-gap';

/**
 * Watches every managed instance of one account at one provider (workflow id `observe-<account>-<provider>`):
 * each round lists the provider's instances with one call and signals the launch workflows whose instance
 * booted, stopped, came back or vanished (the round's activity sends those signals; this workflow sends only
 * what the activity could not). The rows are the watch list, so a lost signal or a restart loses
 * nothing; a launch signals `watchInstance` (or starts the observer) to be looked at soon.
 *
 * The wait adapts: 1 s doubling up to `bootMs` while an instance boots, `spotMs` while a spot instance runs, `steadyMs`
 * otherwise; a failed round waits longer (doubling up to `maxBackoffMs`, never less than a 429's `Retry-After`). A new
 * instance wakes it early, but rounds start at most one per second (`bootMs` if shorter) during bursts. It ends
 * when the account has no live managed instance at the provider, and continues as new to bound its history.
 */
export async function observeProviderInstances(input: ObserverInput): Promise<void> {
  const { observeAccountProvider } = proxyActivities<Activities>({
    startToCloseTimeout: input.activityTimeoutMs ?? 60_000,
    // Only the database can make it throw (provider failures come back as results): keep trying.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const maxBackoffMs = input.maxBackoffMs ?? 600_000;
  const status: ObserverStatus = input.carried?.status ?? {
    watched: 0,
    intervalMs: 0,
    rounds: 0,
    providerCalls: 0,
    signalsSent: 0,
    lastFailure: null,
  };
  let backoffMs = input.carried?.backoffMs ?? 0;
  let known = new Set<string>();
  let woken = false;
  let bootStep = 0;
  /** A viewer arrived (keeps an ending observer going) / a refresh asked for a round after the last one began. */
  let viewerArrived: boolean;
  let refreshWanted = false;
  let lastRoundStartMs = 0;
  const refreshMinGapMs = input.refreshMinGapMs ?? 2_000;
  setHandler(watchInstanceSignal, (instanceId: string) => {
    if (!known.has(instanceId)) woken = true;
  });
  setHandler(observeNowSignal, (request: ObserveNowRequest) => {
    viewerArrived = true;
    if (request.refresh && request.requestedAtMs >= lastRoundStartMs) refreshWanted = true;
  });
  setHandler(observerStatusQuery, () => status);

  const limit = input.continueAsNewAfter ?? 300;
  for (let turn = 0; ; turn++) {
    woken = false;
    viewerArrived = false;
    refreshWanted = false;
    lastRoundStartMs = Date.now();
    const round = await observeAccountProvider({ accountId: input.accountId, provider: input.provider });
    known = new Set(round.watchedIds);
    status.rounds++;
    status.watched = round.watchedIds.length;
    status.providerCalls += round.providerCalls;
    // The round told the launch workflows itself; what it could not (the engine was away, or a worker without
    // the port, or a round recorded before rounds delivered) is signalled from here. A workflow that has ended
    // (its instance was ended meanwhile) cannot be signalled: nothing to do.
    const delivered = await Promise.all(
      round.changes.map(({ instanceId, observation }) =>
        getExternalWorkflowHandle(instanceId)
          .signal(providerObservedSignal, observation)
          .then(
            () => 1,
            () => 0,
          ),
      ),
    );
    status.signalsSent += (round.delivered ?? 0) + delivered.reduce<number>((a, b) => a + b, 0);
    // `launching` is absent from rounds recorded before it existed: they replay the same decision.
    if (
      round.watchedIds.length === 0 &&
      !round.launching &&
      !round.viewed &&
      !woken &&
      !viewerArrived &&
      !refreshWanted
    ) {
      await condition(allHandlersFinished);
      return; // a launch that raced this end signals a closed workflow, and starts a new observer
    }

    // While something boots: 1 s, 2 s, … up to bootMs after a new instance, as a launch's own looks used to.
    bootStep = round.booting ? bootStep + 1 : 0;
    let intervalMs = round.booting
      ? Math.min(input.bootMs, 1000 * 2 ** (bootStep - 1))
      : round.spotRunning
        ? Math.min(input.spotMs, input.steadyMs)
        : input.steadyMs;
    if (round.failure) {
      backoffMs = Math.min(
        maxBackoffMs,
        Math.max(backoffMs ? backoffMs * 2 : intervalMs * 2, round.failure.retryAfterMs ?? 0),
      );
      intervalMs = Math.max(intervalMs, backoffMs);
      status.lastFailure = `${round.failure.kind}: ${round.failure.message}`;
    } else {
      backoffMs = 0;
      status.lastFailure = null;
    }
    status.intervalMs = intervalMs;
    // A new instance or a refresh wakes the observer early, unless the provider asked us to wait; a refresh
    // waits out the shortest gap between rounds (requests arriving meanwhile share the round).
    await condition(() => (woken || refreshWanted) && backoffMs === 0, intervalMs);
    if (woken) {
      bootStep = 0; // a new instance: start the boot looks short again
      // During a burst of launches the rounds come at most one per WAKE_GAP_MS (the first boot look's
      // spacing): the instances that arrive meanwhile share the next round instead of one round each.
      const gapMs = lastRoundStartMs + Math.min(input.bootMs, WAKE_GAP_MS) - Date.now();
      if (gapMs > 0 && patched(WAKE_GAP_PATCH)) await sleep(gapMs);
    } else if (refreshWanted) {
      const gapMs = lastRoundStartMs + refreshMinGapMs - Date.now();
      if (gapMs > 0) await condition(() => woken, gapMs);
      status.refreshRounds = (status.refreshRounds ?? 0) + 1;
    }

    if (turn + 1 >= limit || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof observeProviderInstances>({ ...input, carried: { backoffMs, status } });
    }
  }
}
