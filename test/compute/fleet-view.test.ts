/**
 * The fleet view: GET /v1/compute reads what the observers last listed (managed and unmanaged instances) and
 * the managed rows. Shown against the simulators with a 1 s observation round: a change made at the provider
 * is listed within a round and `observed_at` says when; a launch is listed in the same response cycle and a
 * terminate at once; a provider whose rounds fail keeps its last view, marked stale and named in `errors`.
 */
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { terminated } from '../helpers/terminate';

jest.setTimeout(120_000);

const STEADY_MS = 1_000;
let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: { pollIntervalMs: STEADY_MS, spotPollIntervalMs: 500, meterIntervalMs: 60_000, bootPollMaxMs: 300 },
  });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

interface Listed {
  id: string;
  status: string;
  managed: boolean;
  public_ip: string | null;
  observed_at: string | null;
  stale?: true;
  gpu_utilization: number[] | null;
}
interface ListBody {
  data: Listed[];
  errors?: { provider: string; code: string; message: string }[];
  providers: { provider: string; observed_at: string | null; status: string }[];
}

async function list(auth: Record<string, string>, query = ''): Promise<ListBody> {
  const res = await t.http.get(`/v1/compute${query}`).set(auth);
  expect(res.status).toBe(200);
  return res.body as ListBody;
}

/** Polls the list (as a dashboard would) until `check` finds what it waits for. */
const listedWhen = <T>(
  what: string,
  auth: Record<string, string>,
  check: (body: ListBody) => T | undefined,
  timeoutMs = 3 * STEADY_MS + 5_000,
) => eventually(what, async () => check(await list(auth)), timeoutMs, 50);

// The tests run side by side: each has its own account and uses a provider no other test here uses, so the
// simulator-wide knobs each turns (RunPod's boot delay, Lambda's failing rounds) reach no other test.
it.concurrent('what the list shows: lists a launch in the same response cycle and a terminate at once', async () => {
  const a = await t.connectedAccount('vastai');
  await list(a.auth); // the first list waits for the account's first round
  const launched = await t.http
    .post('/v1/compute/launch')
    .set(a.auth)
    .send({ provider: 'vastai', gpu_type: 'rtx-a6000' })
    .expect(201);
  const id = launched.body.id as string;
  const afterLaunch = await list(a.auth);
  expect(afterLaunch.data.find((i) => i.id === id)).toMatchObject({
    managed: true,
    status: expect.stringMatching(/provisioning|running/),
  });
  await listedWhen('the instance to run', a.auth, (b) => b.data.find((i) => i.id === id && i.status === 'running'));
  await terminated(t.http, a.auth, id);
  // The provider was listed running a moment ago; the list shows what was just done, not that.
  const afterTerminate = await list(a.auth);
  expect(afterTerminate.data.filter((i) => i.id === id).map((i) => i.status)).toEqual(
    afterTerminate.data.some((i) => i.id === id) ? [expect.stringMatching(/terminating|terminated/)] : [],
  );
  // Once a round no longer lists it, it is gone from the list.
  await listedWhen('the terminated instance to leave the list', a.auth, (b) =>
    b.data.some((i) => i.id === id) ? undefined : true,
  );
});

it.concurrent(
  'what the list shows: shows a change made at the provider within one round, and observed_at says when it was seen',
  async () => {
    const a = await t.connectedAccount('runpod');
    const first = await list(a.auth);
    expect(first.data).toEqual([]);
    expect(first.providers).toEqual([{ provider: 'runpod', observed_at: expect.any(String), status: 'fresh' }]);

    // An instance made at RunPod directly (not through us): unmanaged, listed with its address once it has one.
    t.sims.runpod.control.setBootDelay(1_500);
    const createdAt = Date.now();
    const pod = await t.deps.adapters.runpod.launch(a.simKey, {
      gpuType: 'rtx-a6000',
      gpuCount: 1,
      name: 'made-at-runpod',
      spot: false,
    });
    t.sims.runpod.control.setBootDelay(200);
    const seen = await listedWhen('the pod made at RunPod to be listed', a.auth, (b) =>
      b.data.find((i) => i.id === pod.id),
    );
    expect(seen.managed).toBe(false);
    expect(Date.parse(seen.observed_at!)).toBeGreaterThanOrEqual(createdAt - 5);
    const withIp = await listedWhen('its IP to be listed', a.auth, (b) =>
      b.data.find((i) => i.id === pod.id && i.public_ip !== null),
    );
    expect(withIp.status).toBe('running');
    const runningSeenAt = Date.parse(withIp.observed_at!);
    expect(runningSeenAt).toBeGreaterThanOrEqual(Date.parse(seen.observed_at!));

    // Utilization as RunPod reports it (runtime.gpus[].gpuUtilPercent), within a round.
    expect(withIp.gpu_utilization).toEqual([0]);
    t.sims.runpod.control.setUtilization(a.simKey, pod.id, 37);
    await listedWhen('its utilization to be listed', a.auth, (b) =>
      b.data.find((i) => i.id === pod.id && i.gpu_utilization?.[0] === 37),
    );

    // Stopped there, then terminated there: each visible within a round.
    const stoppedAt = Date.now();
    await t.deps.adapters.runpod.stop(a.simKey, pod.id);
    const stopped = await listedWhen('the stop to be listed', a.auth, (b) =>
      b.data.find((i) => i.id === pod.id && i.status === 'stopped'),
    );
    expect(Date.parse(stopped.observed_at!)).toBeGreaterThanOrEqual(stoppedAt);
    await t.deps.adapters.runpod.terminate(a.simKey, pod.id);
    const gone = await listedWhen('the pod to leave the list', a.auth, (b) =>
      b.data.some((i) => i.id === pod.id) ? undefined : b,
    );
    expect(gone.providers[0]!.status).toBe('fresh');
  },
);

it.concurrent(
  'a provider that fails its rounds: keeps its last view, marked stale and named in errors; the list never fails',
  async () => {
    const a = await t.connectedAccount('lambda');
    const b = await list(a.auth);
    expect(b.providers).toEqual([{ provider: 'lambda', observed_at: expect.any(String), status: 'fresh' }]);
    await t.deps.adapters.lambda.ensureSshKey(a.simKey, { name: 'laptop', publicKey: a.publicKey });
    const made = await t.deps.adapters.lambda.launch(a.simKey, {
      gpuType: 'h100-80gb-sxm',
      gpuCount: 8,
      name: 'made-at-lambda',
      spot: false,
      region: 'us-east-1',
      sshKeyName: 'laptop',
    });
    const fresh = await listedWhen('the Lambda instance to be listed', a.auth, (body) =>
      body.data.some((i) => i.id === made.id) ? body : undefined,
    );
    const lastGood = fresh.providers[0]!.observed_at;

    t.sims.lambda.control.serverErrors(100_000, { status: 503 });
    try {
      const stale = await listedWhen('the failed round to show', a.auth, (body) =>
        body.providers[0]!.status === 'stale' ? body : undefined,
      );
      expect(stale.errors).toEqual([{ provider: 'lambda', code: 'provider_unavailable', message: expect.any(String) }]);
      // Its instances are still there, marked, as of the last good round.
      expect(stale.data.find((i) => i.id === made.id)).toMatchObject({ id: made.id, stale: true });
      expect(stale.providers[0]!.observed_at).not.toBeNull();
      expect(Date.parse(stale.providers[0]!.observed_at!)).toBeGreaterThanOrEqual(Date.parse(lastGood!));
      // A refresh while the provider fails answers too (within its bound), with the same stale view.
      const refreshed = await t.http.get('/v1/compute?refresh=true').set(a.auth);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.providers[0].status).toBe('stale');
    } finally {
      t.sims.lambda.control.resetFaults();
    }
    const recovered = await listedWhen(
      'a good round to clear the failure',
      a.auth,
      (body) => (body.providers[0]!.status === 'fresh' ? body : undefined),
      30_000,
    );
    expect(recovered.errors).toBeUndefined();
    expect(recovered.data.find((i) => i.id === made.id)?.stale).toBeUndefined();
    await t.deps.adapters.lambda.terminate(a.simKey, made.id);
  },
);
