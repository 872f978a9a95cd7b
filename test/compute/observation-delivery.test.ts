/**
 * How an observation round delivers what it saw: each change goes straight to its launch workflow, as a signal
 * from the round's activity. A change the engine could not take goes back to the observer workflow, which
 * signals it durably itself. A change for a workflow that has ended is dropped.
 * (That the launch workflows act on these signals is shown end to end by observation.test.ts.)
 */
import { Client, Connection } from '@temporalio/client';
import { deliverChanges, type ObservedChange } from '../../activities/observation';
import { createObservationDelivery } from '../../src/workflow-clients/fleet';
import type { ObservationDelivery, ProviderObservation } from '../../workflows/contracts/observation';
import { freePort } from '../helpers/ports';
import { createTemporalTestEnv, TEST_DATA_CONVERTER, uniqueTaskQueue, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(60_000);

let temporal: TemporalTestEnv;
beforeAll(async () => {
  temporal = await createTemporalTestEnv();
});
afterAll(async () => {
  await temporal.close();
});

const observation = (atMs: number): ProviderObservation => ({ gone: true, instance: null, atMs });

/** A `tell` answering from `outcomeOf` (by the observation's `atMs`), counting calls and the most at once. */
function recordingTell(outcomeOf: (i: number) => ObservationDelivery | 'throws') {
  const told: string[] = [];
  let inFlight = 0;
  const seen = { told, mostInFlight: 0 };
  const tell = async (rowId: string, observation: ProviderObservation): Promise<ObservationDelivery> => {
    told.push(rowId);
    inFlight++;
    seen.mostInFlight = Math.max(seen.mostInFlight, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight--;
    const outcome = outcomeOf(observation.atMs);
    if (outcome === 'throws') throw new Error('engine away');
    return outcome;
  };
  return { tell, seen };
}

const changesFor = (n: number): ObservedChange[] =>
  Array.from({ length: n }, (_, i) => ({ instanceId: `launch-acct_x-${i}`, observation: observation(i) }));

it('a round delivers its changes a few at a time, and drops those whose workflow has ended', async () => {
  const changes = changesFor(70);
  const { tell, seen } = recordingTell((i) => (i % 3 === 1 ? 'ended' : 'delivered'));
  const result = await deliverChanges(changes, tell);
  expect(seen.told).toHaveLength(70);
  expect(new Set(seen.told).size).toBe(70);
  expect(seen.mostInFlight).toBeGreaterThan(1);
  expect(seen.mostInFlight).toBeLessThanOrEqual(32);
  expect(result).toEqual({ delivered: 70 - 23, undelivered: [] }); // 23 of i < 70 have i % 3 === 1
});

it('what the engine did not take goes back to the observer, with the batches after it untried', async () => {
  const changes = changesFor(70);
  // In the first batch (32 at once): an answer of `undelivered` and a failure.
  const { tell, seen } = recordingTell((i) =>
    i === 5 ? 'undelivered' : i === 9 ? 'throws' : i === 2 ? 'ended' : 'delivered',
  );
  const result = await deliverChanges(changes, tell);
  expect(seen.told).toHaveLength(32); // one batch tried; each later one would have waited out its deadline
  expect(result.delivered).toBe(29); // 32 less the undelivered one, the failure and the ended one
  // Back to the observer with what the provider said: the two of the first batch, then every untried one.
  expect(result.undelivered.map((c) => c.observation.atMs)).toEqual([
    5,
    9,
    ...Array.from({ length: 38 }, (_, k) => 32 + k),
  ]);
});

it(
  'the signal: delivered to a running workflow, `ended` for one that does not run, ' +
    '`undelivered` when the engine cannot be reached',
  async () => {
    const tell = createObservationDelivery({ client: temporal.env.client });
    // A run no worker picks up still takes signals: the engine records them in its history.
    const workflowId = `launch-acct_delivery-${Date.now()}`;
    const handle = await temporal.env.client.workflow.start('launchInstance', {
      taskQueue: uniqueTaskQueue('nobody'),
      workflowId,
      args: [],
    });
    try {
      expect(await tell(workflowId, observation(1_234))).toBe('delivered');
      const signals = ((await handle.fetchHistory()).events ?? []).filter(
        (e) => e.workflowExecutionSignaledEventAttributes,
      );
      expect(signals.map((e) => e.workflowExecutionSignaledEventAttributes!.signalName)).toEqual(['providerObserved']);
    } finally {
      await handle.terminate('test finished');
    }
    expect(await tell(workflowId, observation(1_235))).toBe('ended');
    expect(await tell(`launch-acct_delivery-never-${Date.now()}`, observation(1_236))).toBe('ended');

    const away = new Client({
      connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}` }),
      dataConverter: TEST_DATA_CONVERTER,
    });
    try {
      // Within its deadline (5 s by default; shorter here), not after the SDK's own retries.
      const startedAt = Date.now();
      expect(await createObservationDelivery({ client: away }, 500)(workflowId, observation(1_237))).toBe(
        'undelivered',
      );
      expect(Date.now() - startedAt).toBeLessThan(5_000);
    } finally {
      await away.connection.close();
    }
  },
);
