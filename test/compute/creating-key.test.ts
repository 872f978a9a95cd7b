/**
 * An instance is ended by a "not found" only when the key that asked is the key that created it (real stack:
 * Temporal dev server, Postgres, the provider simulators; two simulator accounts = two keys). Replacing the
 * key through the API with another account's key is refused (409) while instances live; a key changed behind
 * the API's back (here: in the database) gets "not found" for the instance, and the instance keeps its status
 * and its meter, says why in `warnings`, and a terminate waits for the right key instead of taking the "not
 * found" as done. The per-instance look and reconciliation follow the same rule.
 */
import type { ActivityDeps } from '../../activities/deps';
import { createInstanceActivities } from '../../activities/instances';
import { createReconciliationActivities } from '../../activities/reconciliation';
import type { ProviderId } from '../../src/providers/types';
import { providerKeyFingerprint } from '../../src/domain/provider-key-fingerprint';
import { createActivityQueries } from '../../src/worker';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: {
      pollIntervalMs: 1_000,
      meterIntervalMs: 1_000,
      bootPollMaxMs: 300,
      endRetryInitialMs: 300,
      endRetryMaxMs: 600,
    },
    answerBounds: { lifecycleMs: 1_500 },
  });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  for (const p of ['runpod', 'vastai', 'lambda'] as const) t.sims[p].control.setBootDelay(300);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

const MISMATCH = /did not create this instance and cannot see it/;

const LAUNCH_BODIES: Record<ProviderId, object> = {
  runpod: { gpu_type: 'rtx-a6000' },
  vastai: { gpu_type: 'rtx-a6000' },
  lambda: { gpu_type: 'h100-80gb-sxm', region: 'us-east-1' },
};

interface Row {
  id: string;
  status: string;
  ended_at: string | null;
  key_warning: string | null;
}
const rowOf = async (id: string): Promise<Row> =>
  (
    await t.sql<Row>('SELECT id, status, ended_at, key_warning FROM instances WHERE provider_instance_id = $1', [id])
  )[0]!;
const chargeCount = async (accountId: string): Promise<number> =>
  (
    await t.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM ledger_entries WHERE account_id = $1 AND type = 'instance_charge'",
      [accountId],
    )
  )[0]!.n;

async function launchRunning(provider: ProviderId) {
  const account = await t.connectedAccount(provider);
  const res = await t.http
    .post('/v1/compute/launch')
    .set(account.auth)
    .send({ provider, ...LAUNCH_BODIES[provider] });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  await eventually(
    `${id} running`,
    async () => ((await rowOf(id)).status === 'running' ? true : undefined),
    30_000,
    100,
  );
  return { ...account, id };
}

/**
 * Replaces the account's stored key behind the API's back (no replacement check), as a restore or a hand edit would.
 */
async function forceKey(accountId: string, provider: ProviderId, apiKey: string): Promise<void> {
  const sealed = t.deps.vault.seal(apiKey, accountId);
  await t.sql(
    'UPDATE provider_keys SET ciphertext = $1, iv = $2, auth_tag = $3, encryption_key_id = $4 WHERE account_id = $5 ' +
      'AND provider = $6',
    [sealed.ciphertext, sealed.iv, sealed.authTag, sealed.keyId, accountId, provider],
  );
}

/**
 * Terminates with the key that works: 200 terminated, or 202 while it is still under way past the 1.5 s answer
 * bound (a loaded machine, several tests side by side) and then terminated when asked again.
 */
async function terminate(auth: Record<string, string>, id: string): Promise<void> {
  await eventually(
    `${id} terminated`,
    async () => {
      const res = await t.http.post(`/v1/compute/${id}/terminate`).set(auth);
      if (res.status !== 200 && res.status !== 202)
        throw new Error(`terminate answered ${res.status} ${JSON.stringify(res.body)}`);
      return res.status === 200 && res.body.status === 'terminated' ? true : undefined;
    },
    30_000,
    200,
  );
}

/** The record as GET /v1/compute shows it. */
async function listed(auth: Record<string, string>, id: string): Promise<{ status: string; warnings?: string[] }> {
  const res = await t.http.get('/v1/compute').set(auth);
  expect(res.status).toBe(200);
  return (res.body.data as { id: string; status: string; warnings?: string[] }[]).find((r) => r.id === id)!;
}

// Every test has its own account and keys and touches no simulator-wide knob: they run side by side.
it.concurrent(
  'replacing the key through the API: refuses a key of another provider account under a live instance (409 naming ' +
    'it); the instance keeps its key and its meter',
  async () => {
    const a = await launchRunning('runpod');
    const otherAccountKey = t.sims.runpod.createKey();
    const res = await t.http
      .post('/v1/settings/providers')
      .set(a.auth)
      .send({ provider: 'runpod', api_key: otherAccountKey });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ instance_id: a.id }));
    const keys = await t.http.get('/v1/settings/providers').set(a.auth);
    expect(keys.body.data[0].key_hint).toBe(`…${a.simKey.slice(-4)}`);
    const before = await chargeCount(a.accountId);
    await eventually(
      'another charge',
      async () => ((await chargeCount(a.accountId)) > before ? true : undefined),
      30_000,
      200,
    );
    expect((await rowOf(a.id)).status).toBe('running');
    await terminate(a.auth, a.id);
  },
);

it.concurrent(
  'a replacement the provider confirms: binds the live instances to the new key at once (no look needed), ' +
    'and leaves them alone on a 409',
  async () => {
    // An instance of ours with no workflow (so no observer): only the replacement can bind it.
    const a = await t.connectedAccount('runpod');
    const inst = await t.deps.adapters.runpod.launch(a.simKey, {
      gpuType: 'rtx-a6000',
      gpuCount: 1,
      name: 'bound-by-replacement',
      spot: false,
    });
    await t.sql(
      `INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type, ` +
        `gpu_count, spot,
       provider_key_fingerprint, key_warning)
     VALUES ('row-bound', $1, 'h', 'runpod', $2, 'bound-by-replacement', 'running', 'rtx-a6000', 1, false, ` +
        `'an-earlier-key', 'warned')`,
      [a.accountId, inst.id],
    );
    const fingerprintNow = async () =>
      (
        await t.sql<{ f: string; w: string | null }>(
          "SELECT provider_key_fingerprint AS f, key_warning AS w FROM instances WHERE id = 'row-bound'",
        )
      )[0]!;

    const refused = await t.http
      .post('/v1/settings/providers')
      .set(a.auth)
      .send({ provider: 'runpod', api_key: t.sims.runpod.createKey() });
    expect(refused.status).toBe(409);
    expect(await fingerprintNow()).toEqual({ f: 'an-earlier-key', w: 'warned' });

    const replaced = await t.http
      .post('/v1/settings/providers')
      .set(a.auth)
      .send({ provider: 'runpod', api_key: a.simKey });
    expect(replaced.status).toBe(200);
    expect(await fingerprintNow()).toEqual({ f: providerKeyFingerprint('runpod', a.simKey), w: null });
    await t.deps.adapters.runpod.terminate(a.simKey, inst.id);
  },
);

it.concurrent.each(['runpod', 'vastai', 'lambda'] as const)(
  "the key changed behind the API: %s: a not-found from the new key's account neither ends nor stops metering the " +
    'instance; terminate waits for the right key',
  async (provider) => {
    const a = await launchRunning(provider);
    await forceKey(a.accountId, provider, t.sims[provider].createKey());

    // The observer's rounds now get "not found": the record says why, and nothing else changes.
    const warned = await eventually(
      'the mismatch warning',
      async () => {
        const r = await listed(a.auth, a.id);
        return r?.warnings?.some((w) => MISMATCH.test(w)) ? r : undefined;
      },
      30_000,
      200,
    );
    expect(warned.status).toBe('running');
    const chargesThen = await chargeCount(a.accountId);
    await eventually(
      'metering to go on',
      async () => ((await chargeCount(a.accountId)) >= chargesThen + 2 ? true : undefined),
      30_000,
      200,
    );
    let row = await rowOf(a.id);
    expect(row.status).toBe('running');
    expect(row.ended_at).toBeNull();

    // A terminate with the wrong key is not done by "not found": accepted (202), retried, still metered.
    const asked = await t.http.post(`/v1/compute/${a.id}/terminate`).set(a.auth);
    expect(asked.status).toBe(202);
    expect(asked.body.status).toBe('terminating');
    const stillThere = await t.deps.adapters[provider].getInstance(a.simKey, a.id);
    expect(stillThere?.status).toBe('running');

    // The key that created it, reconnected through the API (it sees the instance), finishes the terminate.
    const back = await t.http.post('/v1/settings/providers').set(a.auth).send({ provider, api_key: a.simKey });
    expect(back.status).toBe(200);
    row = await eventually(
      'the terminate to go through',
      async () => {
        const r = await rowOf(a.id);
        return r.status === 'terminated' ? r : undefined;
      },
      30_000,
      200,
    );
    expect(row.key_warning).toBeNull();
    const atProvider = await t.deps.adapters[provider].getInstance(a.simKey, a.id);
    expect(atProvider === null || atProvider.status === 'terminated').toBe(true);
  },
);

it.concurrent(
  'per-instance look and reconciliation: leave an instance the new key cannot see as it is, ' +
    'and bind it again once the key sees it',
  async () => {
    const a = await launchRunning('runpod');
    const deps = t.workerDeps();
    const activityDeps: ActivityDeps = {
      ...deps,
      queries: createActivityQueries(t.db.pool, deps.vault),
      workflows: {
        notifyAlertMonitor: async () => {},
        requestInstanceEnd: async () => {},
        // As if no workflow managed it: reconciliation would otherwise finish a row the provider no longer knows.
        instanceWorkflows: { isManaged: async () => false, manage: async () => {} },
      },
    };
    const { id: rowId } = await rowOf(a.id);
    await forceKey(a.accountId, 'runpod', t.sims.runpod.createKey());

    await expect(createInstanceActivities(activityDeps).pollInstance(rowId)).rejects.toMatchObject({
      type: 'provider_key_mismatch',
    });
    const report = await createReconciliationActivities(activityDeps).reconcileAccountProvider({
      accountId: a.accountId,
      provider: 'runpod',
    });
    expect(report.keyMismatch).toEqual([a.id]);
    expect(report.finished).toEqual([]);
    let row = await rowOf(a.id);
    expect(row.status).toBe('running');
    expect(row.key_warning).toMatch(MISMATCH);

    await forceKey(a.accountId, 'runpod', a.simKey);
    const seen = await createInstanceActivities(activityDeps).pollInstance(rowId);
    expect(seen.gone).toBe(false);
    row = await rowOf(a.id);
    expect(row.key_warning).toBeNull();
    await terminate(a.auth, a.id);
  },
);
