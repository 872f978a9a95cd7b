/**
 * Webhook delivery activities: the dispatcher's batch (claim outbox events, fan out, first attempts) and the
 * single attempts of the per-delivery retry workflows. All HTTP goes through {@link sendWebhook}.
 */
import { Context } from '@temporalio/activity';
import { Client as PgClient } from 'pg';
import { OUTBOX_CHANNEL } from '../src/webhooks/outbox-listener';
import type { DeliveryWork } from '../src/db/queries/webhooks';
import { signWebhook } from '../src/domain/webhook-signing';
import { sendWebhook, systemResolver, type AttemptResult } from '../src/webhooks/webhook-sender';
import type { DeliveryState } from '../workflows/contracts/webhooks';
import { DEFAULT_WEBHOOK_SETTINGS, type ActivityDeps, type WebhookSettings } from './deps';

const ATTEMPT_CONCURRENCY = 64;
/** First attempts still running after their batch moved on; past this many, batches wait for theirs again. */
const MAX_LATE_ATTEMPTS = 2_000;

/** The exact body and headers of one delivery (the same bytes on every retry but the timestamp). */
export function buildWebhookMessage(
  work: DeliveryWork,
  nowSeconds: number,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id: work.event_id,
    type: work.type,
    created_at: work.event_created_at,
    data: work.data,
  });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'gpu-orchestrator-webhooks/1',
      'webhook-id': work.delivery_id,
      'webhook-timestamp': String(nowSeconds),
      'webhook-signature': signWebhook(work.secret, work.delivery_id, nowSeconds, body),
    },
  };
}

/**
 * Heartbeats every 2 s while `fn` runs, so a worker that dies mid-batch is noticed within the heartbeat
 * timeout instead of the (long) start-to-close timeout.
 */
async function withHeartbeat<T>(fn: () => Promise<T>): Promise<T> {
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    return fn(); // called outside an activity
  }
  const timer = setInterval(() => context.heartbeat(), 2_000);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/**
 * Waits for "new rows in the outbox": a LISTEN connection of this activity's own (when a database URL is
 * known), else a short poll interval. `wait` resolves on a notification, the timeout or cancellation.
 */
async function openOutboxWaiter(databaseUrl: string | undefined, signal: AbortSignal | undefined) {
  let notified = false;
  let wakeUp: (() => void) | undefined;
  let client: PgClient | undefined;
  if (databaseUrl) {
    try {
      client = new PgClient({ connectionString: databaseUrl });
      client.on('notification', () => {
        notified = true;
        wakeUp?.();
      });
      client.on('error', () => undefined); // the wait falls back to its timeout
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
    } catch {
      await client?.end().catch(() => undefined);
      client = undefined;
    }
  }
  return {
    async wait(ms: number): Promise<void> {
      if (notified) {
        notified = false;
        return;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          wakeUp = undefined;
          resolve();
        };
        const timer = setTimeout(done, client ? ms : Math.min(ms, 250));
        signal?.addEventListener('abort', done);
        wakeUp = done;
      });
      notified = false;
    },
    close: async () => {
      await client?.end().catch(() => undefined);
    },
  };
}

/** Whether `promise` settles within `ms` (its failure counts as settled: the caller awaits it anyway). */
async function finishesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
}

export function createWebhookActivities(deps: ActivityDeps) {
  const queries = deps.queries.webhooks;
  const settings: WebhookSettings = { ...DEFAULT_WEBHOOK_SETTINGS, ...deps.webhooks?.settings };
  const resolve = deps.webhooks?.resolve ?? systemResolver;
  const policy = { allowedHosts: settings.allowedHosts };
  /** First attempts that outlived their batch's wait: how many still run, and the hand-offs they produced. */
  const late = { running: 0, handoff: [] as string[] };

  /** Sends one attempt of `work` (nothing recorded yet) and tells the metrics hook. */
  async function send(work: DeliveryWork): Promise<AttemptResult> {
    const message = buildWebhookMessage(work, Math.floor(Date.now() / 1000));
    const result = await sendWebhook({ url: work.url, ...message, timeoutMs: settings.timeoutMs, policy, resolve });
    try {
      deps.webhooks?.onDeliveryAttempt?.({
        eventType: work.type,
        success: result.success,
        statusCode: result.statusCode,
        latencyMs: result.latencyMs,
      });
    } catch {
      // a metrics hook never fails a delivery
    }
    return result;
  }

  /** Records an attempt with its consequences; `final` means no automatic retry follows a failure. */
  async function record(work: DeliveryWork, result: AttemptResult, final: boolean): Promise<DeliveryState | null> {
    const recorded = await queries.recordAttempt(work.delivery_id, result, {
      nextAttemptInMs: final ? null : (settings.retryScheduleMs[work.attempt_count] ?? null),
      disableAfterMs: settings.disableAfterMs,
    });
    if (!recorded) return null;
    if (recorded.endpointDeactivated)
      deps.logger.warn('webhook endpoint deactivated after failing continuously', { delivery_id: work.delivery_id });
    return {
      status: recorded.status,
      nextAttemptAt: recorded.nextAttemptAt ? Date.parse(recorded.nextAttemptAt) : null,
    };
  }

  /** One attempt of `work`, recorded; an inactive endpoint's delivery is cancelled instead. */
  async function attempt(work: DeliveryWork, final: boolean): Promise<DeliveryState | null> {
    if (!work.active) {
      await queries.cancelDelivery(work.delivery_id);
      return { status: 'cancelled', nextAttemptAt: null };
    }
    return record(work, await send(work), final);
  }

  return {
    /**
     * Dispatcher batches: each claims undispatched outbox events, creates their deliveries and makes every
     * first attempt at once. With `pumpMs`, it keeps going for that long, waking on the outbox NOTIFY, so the
     * happy path costs no workflow round trip at all; it returns early as soon as deliveries need the retry
     * path (failed first attempts, orphans whose claim outlived its lease), and says whether more events are
     * probably waiting.
     */
    async dispatchWebhookBatch(input: {
      limit?: number;
      pumpMs?: number;
    }): Promise<{ claimed: number; attempted: number; handoff: string[]; more: boolean }> {
      return withHeartbeat(async () => {
        const pumpUntil = Date.now() + (input.pumpMs ?? 0);
        let signal: AbortSignal | undefined;
        try {
          signal = Context.current().cancellationSignal;
        } catch {
          signal = undefined;
        }
        const waiter = input.pumpMs ? await openOutboxWaiter(deps.webhooks?.databaseUrl, signal) : undefined;
        const total = { claimed: 0, attempted: 0, handoff: [] as string[], more: false };
        try {
          for (;;) {
            const r = await dispatchBatch(input);
            total.claimed += r.claimed;
            total.attempted += r.attempted;
            total.handoff.push(...r.handoff);
            total.more = r.more;
            // Hand-offs go back to the workflow at once; otherwise keep pumping until the time is up.
            if (!waiter || total.handoff.length > 0 || Date.now() >= pumpUntil || signal?.aborted) return total;
            if (!r.more) await waiter.wait(Math.min(settings.dispatchTickMs, pumpUntil - Date.now()));
          }
        } finally {
          await waiter?.close();
        }
      });
    },

    /** The retry workflow takes its delivery over; null when it no longer exists (endpoint deleted). */
    async adoptWebhookDelivery(deliveryId: string): Promise<DeliveryState | null> {
      const work = await queries.adoptDelivery(deliveryId);
      if (!work) return null;
      if (work.status === 'pending' && !work.active) {
        await queries.cancelDelivery(deliveryId);
        return { status: 'cancelled', nextAttemptAt: null };
      }
      return { status: work.status, nextAttemptAt: work.next_attempt_at ? Date.parse(work.next_attempt_at) : null };
    },

    /**
     * One attempt of a delivery. A pending delivery follows the retry schedule; `manual` on a finished one
     * (succeeded, failed, cancelled) makes exactly one more attempt. Null when the delivery is gone.
     */
    async attemptWebhookDelivery(input: { deliveryId: string; manual: boolean }): Promise<DeliveryState | null> {
      return withHeartbeat(async () => {
        const work = await queries.findWork(input.deliveryId);
        if (!work) return null;
        if (work.status !== 'pending' && !input.manual) return { status: work.status, nextAttemptAt: null };
        return attempt(work, work.status !== 'pending');
      });
    },
  };

  async function dispatchBatch(input: {
    limit?: number;
  }): Promise<{ claimed: number; attempted: number; handoff: string[]; more: boolean }> {
    const limit = input.limit ?? settings.batchSize;
    const started = performance.now();
    const { claimed, work } = await queries.claimOutboxBatch(limit, settings.claimLeaseMs);
    const claimedAt = performance.now();
    const handoff: string[] = late.handoff.splice(0);
    const succeeded: Parameters<typeof queries.recordSuccesses>[0] = [];
    // One wait for the whole batch (not per attempt: 64 slots × a 1 s wait each would queue a big batch's
    // healthy attempts behind its hanging ones); attempts started after it go on in the background at once.
    const waitUntil = performance.now() + settings.batchWaitMs;
    await forEachLimited(work, ATTEMPT_CONCURRENCY, async (w) => {
      // Until the batch stops waiting for it, an attempt reports to the batch; afterwards it records itself.
      let inBatch = true;
      const outcome = send(w).then(async (result) => {
        if (result.success) {
          const success = {
            deliveryId: w.delivery_id,
            attemptedAt: result.attemptedAt,
            statusCode: result.statusCode!,
            latencyMs: result.latencyMs,
            responseBody: result.responseBody,
          };
          if (inBatch) succeeded.push(success);
          else await queries.recordSuccesses([success]);
          return;
        }
        const state = await record(w, result, false);
        if (state?.status === 'pending') (inBatch ? handoff : late.handoff).push(w.delivery_id);
      });
      if (
        late.running < MAX_LATE_ATTEMPTS &&
        !(await finishesWithin(outcome, Math.max(0, waitUntil - performance.now())))
      ) {
        inBatch = false;
        late.running++;
        // A late attempt that cannot record its outcome leaves the delivery to the orphan sweep (lease).
        void outcome
          .catch((err) => deps.logger.warn('late webhook attempt not recorded', { delivery_id: w.delivery_id, err }))
          .finally(() => late.running--);
        return;
      }
      await outcome;
    });
    // The happy path: every success of the batch in one transaction.
    const sentAt = performance.now();
    await queries.recordSuccesses(succeeded);
    if (claimed > 0) {
      deps.logger.debug('webhook batch', {
        events: claimed,
        deliveries: work.length,
        failed: work.length - succeeded.length,
        claim_ms: Math.round(claimedAt - started),
        send_ms: Math.round(sentAt - claimedAt),
        record_ms: Math.round(performance.now() - sentAt),
      });
    }
    handoff.push(...(await queries.sweepOrphanedDeliveries(100, settings.claimLeaseMs)));
    return { claimed, attempted: work.length, handoff, more: claimed === limit };
  }
}
