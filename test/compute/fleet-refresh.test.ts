/**
 * The fleet view costs the providers nothing per list: with observation rounds an hour apart (so every
 * provider request in a window is one a list caused), 100 lists in a row make no provider request, a first
 * list of an account without an observer gets a round, and 20 concurrent `?refresh=true` share one round.
 */
import type { ProviderId } from '../../src/providers/types';
import { observerStatusQuery, observerWorkflowId } from '../../workflows/contracts/observation';
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
      pollIntervalMs: 3_600_000,
      spotPollIntervalMs: 3_600_000,
      meterIntervalMs: 3_600_000,
      bootPollMaxMs: 300,
    },
  });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

type Keys = { simKey: string; vastKey: string };
/** The simulators' last recorded exchanges so far: what a test counts comes after them. */
const requestMark = () => ({
  runpod: t.sims.runpod.control.requests().at(-1)?.seq ?? 0,
  vastai: t.sims.vastai.control.requests().at(-1)?.seq ?? 0,
});
/** The account's own provider requests since `mark` (the other test runs beside this one). */
const providerRequests = (a: Keys, mark: ReturnType<typeof requestMark>) => ({
  runpod: t.sims.runpod.control.requests({ key: a.simKey }).filter((r) => r.seq > mark.runpod && r.route !== null)
    .length,
  vastai: t.sims.vastai.control.requests({ key: a.vastKey }).filter((r) => r.seq > mark.vastai && r.route !== null)
    .length,
});

/** An account with runpod and vastai keys and `perProvider` instances made at each provider directly. */
async function accountWithInstances(perProvider: number) {
  const a = await t.connectedAccount('runpod');
  const vastKey = t.sims.vastai.createKey();
  await t.http.post('/v1/settings/providers').set(a.auth).send({ provider: 'vastai', api_key: vastKey }).expect(201);
  const ids: string[] = [];
  for (let i = 0; i < perProvider; i++) {
    ids.push(
      (
        await t.deps.adapters.runpod.launch(a.simKey, {
          gpuType: 'rtx-a6000',
          gpuCount: 1,
          name: `pod-${i}`,
          spot: false,
        })
      ).id,
    );
    ids.push(
      (
        await t.deps.adapters.vastai.launch(vastKey, {
          gpuType: 'rtx-a6000',
          gpuCount: 1,
          name: `vast-${i}`,
          spot: false,
        })
      ).id,
    );
  }
  return { ...a, vastKey, ids };
}

const observerRounds = async (accountId: string, provider: ProviderId) =>
  (await temporal.env.client.workflow.getHandle(observerWorkflowId(accountId, provider)).query(observerStatusQuery))
    .rounds;

// Each test has its own account and counts only its own keys' requests. They stay one after the other: both
// keep the API busy (100 lists, 20 refreshes), side by side they took longer (12.0 s + 7.3 s vs 5.4 s + 3.4 s).
describe('lists served from the fleet view', () => {
  it('answers a first list with a round of its own, then 100 lists in a row with no provider request', async () => {
    const a = await accountWithInstances(3);
    const first = await t.http.get('/v1/compute').set(a.auth).expect(200);
    expect(first.body.data.map((i: { id: string }) => i.id).sort()).toEqual([...a.ids].sort());
    expect(first.body.providers.map((p: { status: string }) => p.status)).toEqual(['fresh', 'fresh']);

    const mark = requestMark();
    for (let i = 0; i < 100; i++) {
      const res = await t.http.get('/v1/compute').set(a.auth).expect(200);
      expect(res.body.data).toHaveLength(a.ids.length);
    }
    expect(providerRequests(a, mark)).toEqual({ runpod: 0, vastai: 0 });
    // The observers are still there for the viewer (one round each so far), at their normal cadence.
    expect(await observerRounds(a.accountId, 'runpod')).toBe(1);
    expect(await observerRounds(a.accountId, 'vastai')).toBe(1);
  });

  it('answers 20 concurrent ?refresh=true with one provider round per provider, all 20 with that round', async () => {
    const a = await accountWithInstances(2);
    await t.http.get('/v1/compute').set(a.auth).expect(200);
    // A pod made at RunPod after the first round: only a refresh can show it within this hour.
    const late = await t.deps.adapters.runpod.launch(a.simKey, {
      gpuType: 'rtx-a6000',
      gpuCount: 1,
      name: 'late',
      spot: false,
    });
    // The first list was answered from its round's fleet view; the observer counts that round once the round's
    // activity has returned, which may be after the answer.
    const roundsBefore = await eventually('the first round to be counted', async () => {
      const rounds = await observerRounds(a.accountId, 'runpod');
      return rounds >= 1 ? rounds : undefined;
    });
    const mark = requestMark();
    const asked = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.http.get('/v1/compute?refresh=true').set(a.auth)),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const r of answers) {
      expect(r.body.data.map((i: { id: string }) => i.id)).toContain(late.id);
      for (const p of r.body.providers) expect(Date.parse(p.observed_at)).toBeGreaterThanOrEqual(asked);
    }
    // One list call per provider for all 20 (RunPod lists in one call, Vast.ai's 3 instances fit one page).
    expect(providerRequests(a, mark)).toEqual({ runpod: 1, vastai: 1 });
    expect(await observerRounds(a.accountId, 'runpod')).toBe(roundsBefore + 1);
  });
});
