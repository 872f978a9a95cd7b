/**
 * GPU names as people type them, on the API with the simulators' prices: an alias naming one GPU type is that
 * type on every route (`4090` launches `rtx-4090`), a family name (`h100`) is 400 listing every slug it could
 * mean, and a name of none is one status and wording on compare, history, plan, launch, alerts, schedules and
 * jobs. `GET /v1/gpus` lists the slugs with their aliases. Launch and schedules check an image by the same rule.
 */
import { createTestContext, type TestContext } from '../helpers/context';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { terminated } from '../helpers/terminate';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 60_000 } });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  await t.recordSimulatorPrices();
  await t.deps.pricing.reload();
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

const H100S = ['h100-80gb-sxm', 'h100-80gb-pcie', 'h100-94gb-nvl'];

it('GET /v1/gpus lists every slug with its aliases, and the family names with their slugs', async () => {
  const res = await t.http.get('/v1/gpus').expect(200);
  const rtx4090 = res.body.data.find((g: { gpu_type: string }) => g.gpu_type === 'rtx-4090');
  expect(rtx4090).toMatchObject({
    display_name: 'NVIDIA GeForce RTX 4090',
    vram_gb: 24,
    aliases: expect.arrayContaining(['4090', 'rtx4090']),
  });
  expect(res.body.data.find((g: { gpu_type: string }) => g.gpu_type === 'l40s-48gb').aliases).toContain('l40s');
  expect(res.body.families.h100).toEqual(H100S);
  // Every slug the pricing snapshot shows is listed.
  const priced = (await t.http.get('/v1/pricing').expect(200)).body.gpu_types.map(
    (g: { gpu_type: string }) => g.gpu_type,
  );
  const listed = res.body.data.map((g: { gpu_type: string }) => g.gpu_type);
  expect(priced.filter((s: string) => !listed.includes(s))).toEqual([]);
});

it('`h100` is 400 listing the three H100 slugs on launch, plan, compare and history', async () => {
  const a = await t.connectedAccount('runpod');
  const answers = [
    await t.http.post('/v1/compute/launch').set(a.auth).send({ provider: 'runpod', gpu_type: 'h100' }),
    await t.http.post('/v1/compute/plan').set(a.auth).send({ gpu_type: 'h100' }),
    await t.http.get('/v1/pricing/compare?gpu=h100'),
    await t.http.get('/v1/pricing/history?gpu=h100&period=24h'),
  ];
  for (const res of answers) {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details[0].message).toBe(
      `names several GPU types (got "h100"): ${H100S.join(', ')}; send one of them`,
    );
  }
  expect(t.sims.runpod.control.instances(a.simKey)).toEqual([]);
});

it('an unknown GPU is 400 validation_error in one wording on every route taking one; nothing is made', async () => {
  const a = await t.connectedAccount('vastai');
  const wording = 'names no GPU type (got "tpu-v5"); GET /v1/gpus lists the GPU types and their aliases';
  const post = (path: string, body: object) => t.http.post(path).set(a.auth).send(body);
  const answers = {
    launch: await post('/v1/compute/launch', { provider: 'vastai', gpu_type: 'tpu-v5' }),
    plan: await post('/v1/compute/plan', { gpu_type: 'tpu-v5' }),
    compare: await t.http.get('/v1/pricing/compare?gpu=tpu-v5'),
    history: await t.http.get('/v1/pricing/history?gpu=tpu-v5&period=7d'),
    alert: await post('/v1/alerts', { type: 'price_drop', gpu_type: 'tpu-v5', threshold_price: 1 }),
    schedule: await post('/v1/schedules', { name: 'n', gpu: 'tpu-v5', template: 'pytorch', cron: '0 2 * * *' }),
    job: await post('/v1/jobs', { gpu: 'tpu-v5', command: 'python train.py' }),
  };
  const field = { compare: 'query.gpu', history: 'query.gpu', schedule: 'gpu', job: 'gpu' } as Record<string, string>;
  for (const [route, res] of Object.entries(answers)) {
    expect([route, res.status, res.body.error?.code, res.body.error?.details]).toEqual([
      route,
      400,
      'validation_error',
      expect.arrayContaining([{ path: field[route] ?? 'gpu_type', message: wording }]),
    ]);
  }
  expect(t.sims.vastai.control.instances(a.simKey)).toEqual([]);
});

it('`4090` launches rtx-4090, and compare and history answer for the slug an alias names', async () => {
  const a = await t.connectedAccount('runpod');
  const launched = await t.http.post('/v1/compute/launch').set(a.auth).send({ provider: 'runpod', gpu_type: '4090' });
  expect(launched.status).toBe(201);
  expect(launched.body.gpu_type).toBe('rtx-4090');
  expect(t.sims.runpod.control.instances(a.simKey).map((i) => i.id)).toEqual([launched.body.id]);
  await terminated(t.http, a.auth, launched.body.id);

  const compare = await t.http.get('/v1/pricing/compare?gpu=RTX%204090').expect(200);
  expect(compare.body.gpu_type).toBe('rtx-4090');
  const history = await t.http.get('/v1/pricing/history?gpu=l40s&period=24h').expect(200);
  expect(history.body.gpu_type).toBe('l40s-48gb');
  const plan = await t.http.post('/v1/compute/plan').set(a.auth).send({ gpu_type: 'nvidia-rtx-4090' }).expect(200);
  expect(plan.body.gpu_type).toBe('rtx-4090');
});

it(
  'an image a schedule refuses is refused on launch with the same status, code and message, ' +
    'and nothing is created',
  async () => {
    const a = await t.connectedAccount('runpod');
    const launch = await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send({ provider: 'runpod', gpu_type: 'rtx-a6000', docker_image: 'not an image!!' });
    const schedule = await t.http.post('/v1/schedules').set(a.auth).send({
      name: 'nightly',
      gpu: 'rtx-a6000',
      template: 'custom',
      docker_image: 'not an image!!',
      cron: '0 2 * * *',
      max_duration_hours: 1,
    });
    expect([launch.status, launch.body.error.code]).toEqual([400, 'validation_error']);
    expect([schedule.status, schedule.body.error.code]).toEqual([400, 'validation_error']);
    expect(launch.body.error.details).toEqual([
      { path: 'docker_image', message: 'an image reference such as ghcr.io/org/image:tag' },
    ]);
    expect(schedule.body.error.details).toContainEqual({
      path: 'docker_image',
      message: 'an image reference such as ghcr.io/org/image:tag',
    });
    expect(t.sims.runpod.control.instances(a.simKey)).toEqual([]);
    expect(await t.sql('SELECT id FROM instances WHERE account_id = $1', [a.accountId])).toEqual([]);
    expect((await t.http.get('/v1/schedules').set(a.auth).expect(200)).body.data).toEqual([]);
  },
);
