/**
 * The one-step create (`createAndRecord` without SSH access; patch `launch-one-step`): the intent, the SSH key,
 * the counted create and its record, then the observer told, in one local activity. Whether the launch
 * workflow compensates depends on what its failure says: a refusal before the ask was counted (here the
 * live-instance limit at the intent) says nothing was sent, and the client still gets the refusal's own
 * details; a failure after the ask says nothing of the kind, so the workflow terminates by name.
 * The activity runs over stub queries and a stub adapter (no Temporal, no database); the workflow side is
 * the workflow's own `failureOf` / `nothingCreated`. Replays of older runs: replay.test.ts.
 */
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import type { ActivityDeps } from '../../activities/deps';
import { createInstanceActivities, type LaunchedAtProvider } from '../../activities/instances';
import type { InstanceRow } from '../../src/db/queries/instances';
import { LimitReachedError, ProviderRequestError } from '../../src/errors';
import type { ProviderInstance } from '../../src/providers/types';
import type { LaunchInput } from '../../workflows/contracts/launch';
import { launchInputFixture } from '../fixtures/launch-input';
import { observerInputOf, type ObserverInput } from '../../workflows/contracts/observation';
import { failureOf, nothingCreated } from '../../workflows/launch/refusal';

const input: LaunchInput = launchInputFixture({
  instanceId: 'launch-acct_one-key1',
  accountId: 'acct_one',
  providerName: 'gpuo-key1',
  bootDeadlineMs: 600_000,
});

const instance = {
  id: 'pod-1',
  name: 'gpuo-key1',
  status: 'provisioning',
  providerStatus: 'PROVISIONING',
  pricePerHour: 0.5,
} as ProviderInstance;

/** The activity over stubs; `steps` lists what it did, in order. */
function oneStep(opts: {
  intent?: () => Promise<unknown>;
  launch?: () => Promise<ProviderInstance>;
  countedBefore?: number;
}) {
  const steps: string[] = [];
  const watched: [ObserverInput, string][] = [];
  const deps = {
    queries: {
      instances: {
        insertIntent: async () => {
          steps.push('intent');
          return (opts.intent ?? (async () => ({})))();
        },
        countCreateAttempt: async () => {
          steps.push('count');
          return (opts.countedBefore ?? 0) + 1;
        },
        // What the database counted before this attempt (another worker's asks included).
        countedCreateAttempts: async () => opts.countedBefore ?? 0,
        recordCreated: async (id: string, i: ProviderInstance) => {
          steps.push('record');
          return { id, provider_instance_id: i.id } as InstanceRow;
        },
      },
      sshKeys: { findDefaultSshKey: async () => null },
    },
    credentials: { findApiKey: async () => 'provider-key' },
    adapters: {
      runpod: {
        launch: async () => {
          steps.push('create');
          return (opts.launch ?? (async () => instance))();
        },
      },
    },
    workflows: {
      watchInstance: async (observer: ObserverInput, id: string) => {
        steps.push('observer told');
        watched.push([observer, id]);
      },
    },
    logger: { warn: () => undefined },
  } as unknown as ActivityDeps;
  return { run: () => createInstanceActivities(deps).createAndRecord(input), steps, watched };
}

/** What the workflow sees of an activity's failure. */
const asSeenByWorkflow = (err: unknown) =>
  new ActivityFailure(
    'activity failed',
    'createAndRecord',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    'worker',
    err as Error,
  );

it(
  'creates, records, then tells the observer (with the launch intervals), ' +
    'and answers the row with the boot deadline',
  async () => {
    const { run, steps, watched } = oneStep({});
    const done = (await run()) as LaunchedAtProvider;
    expect(steps).toEqual(['intent', 'count', 'create', 'record', 'observer told']);
    expect(done.row.provider_instance_id).toBe('pod-1');
    expect(done.observerTold).toBe(true);
    expect(watched).toEqual([[observerInputOf(input), input.instanceId]]);
  },
);

it(
  'a refusal at the intent says nothing was sent: no compensation, ' +
    'and the client sees the refusal details unchanged',
  async () => {
    const { run, steps } = oneStep({
      intent: async () => Promise.reject(new LimitReachedError('live_instances', 3, 'at most 3 live instances')),
    });
    const err = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(steps).toEqual(['intent']);
    const refusal = failureOf(asSeenByWorkflow(err));
    expect(refusal).toMatchObject({
      type: 'limit_reached',
      nothingSent: true,
      details: [{ limit: 'live_instances', max: 3 }],
    });
    expect(nothingCreated(refusal, !refusal.nothingSent)).toBe(true);
  },
);

it('a failure after the ask was sent carries no such word: the workflow compensates', async () => {
  const { run, steps } = oneStep({
    launch: async () => Promise.reject(new ProviderRequestError('runpod', 'transient', 'upstream timed out', 504)),
  });
  const err = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(steps).toEqual(['intent', 'count', 'create']);
  const refusal = failureOf(asSeenByWorkflow(err));
  expect(refusal.nothingSent).toBeUndefined();
  expect(nothingCreated(refusal, !refusal.nothingSent)).toBe(false);
});

it(
  'a refusal at the intent after another worker already asked to create says nothing of the kind: the workflow ' +
    'compensates',
  async () => {
    // A lost worker's create went through; its local activity starts again at attempt 1 on this worker, where
    // the intent step fails. The database's count (1) says an ask was sent, whatever the engine's attempt says.
    const { run, steps } = oneStep({
      countedBefore: 1,
      intent: async () => Promise.reject(new Error('connection terminated unexpectedly')),
    });
    const err = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(steps).toEqual(['intent']);
    const refusal = failureOf(asSeenByWorkflow(err));
    expect(refusal.nothingSent).toBeUndefined();
    expect(nothingCreated(refusal, !refusal.nothingSent)).toBe(false);
  },
);
