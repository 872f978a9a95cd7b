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

it('a round delivers its changes a few at a time, keeps for the observer what the engine did not take, and drops ended workflows', async () => {
  const changes: ObservedChange[] = Array.from({ length: 70 }, (_, i) => ({ instanceId: `launch-acct_x-${i}`, observation: observation(i) }));
  const outcomeOf = (i: number): ObservationDelivery | 'throws' => (['delivered', 'ended', 'undelivered', 'throws'] as const)[i % 4]!;
  const told: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const result = await deliverChanges(changes, async (rowId, seen) => {
    told.push(rowId);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight--;
    const outcome = outcomeOf(seen.atMs);
    if (outcome === 'throws') throw new Error('engine away');
    return outcome;
  });
  expect(told).toHaveLength(70);
  expect(new Set(told).size).toBe(70);
  expect(mostInFlight).toBeGreaterThan(1);
  expect(mostInFlight).toBeLessThanOrEqual(32);
  expect(result.delivered).toBe(18); // i % 4 === 0 for i < 70
  // Not taken (an answer of `undelivered`, or a failure): back to the observer, with what the provider said.
  expect(result.undelivered.map((c) => c.observation.atMs)).toEqual(changes.map((_, i) => i).filter((i) => i % 4 === 2 || i % 4 === 3));
});

it('the signal: delivered to a running workflow, `ended` for one that does not run, `undelivered` when the engine cannot be reached', async () => {
  const tell = createObservationDelivery({ client: temporal.env.client });
  // A run no worker picks up still takes signals: the engine records them in its history.
  const workflowId = `launch-acct_delivery-${Date.now()}`;
  const handle = await temporal.env.client.workflow.start('launchInstance', { taskQueue: uniqueTaskQueue('nobody'), workflowId, args: [] });
  try {
    expect(await tell(workflowId, observation(1_234))).toBe('delivered');
    const signals = ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes);
    expect(signals.map((e) => e.workflowExecutionSignaledEventAttributes!.signalName)).toEqual(['providerObserved']);
  } finally {
    await handle.terminate('test finished');
  }
  expect(await tell(workflowId, observation(1_235))).toBe('ended');
  expect(await tell(`launch-acct_delivery-never-${Date.now()}`, observation(1_236))).toBe('ended');

  const away = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}` }), dataConverter: TEST_DATA_CONVERTER });
  try {
    // Within its deadline (5 s by default; shorter here), not after the SDK's own retries.
    const startedAt = Date.now();
    expect(await createObservationDelivery({ client: away }, 500)(workflowId, observation(1_237))).toBe('undelivered');
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  } finally {
    await away.connection.close();
  }
});
