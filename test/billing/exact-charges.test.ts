/**
 * Charges run on the provider's clock (real stack: Temporal dev server, Postgres, the provider simulators): an
 * instance that was running at the provider and is terminated before our first observation of it is charged
 * from the provider's reported start to the end the provider confirmed, once, at a real price. RunPod and
 * Vast.ai report a start; Lambda reports none and bills from the launch, so there metering starts when Lambda
 * accepted the create (the simulator's own record of that moment is the reference).
 */
import { z } from 'zod';
import { sql } from '../../src/db/sql';
import type { ProviderId } from '../../src/providers/types';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(180_000);

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: { pollIntervalMs: 60_000, meterIntervalMs: 3_600_000 },
  });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(
    t.workerDeps({ temporal: { client: t.temporal, taskQueue: t.deps.temporal.taskQueue } }),
    t.deps.temporal.taskQueue,
  );
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

/** The observer's only view is the provider's instance list: held back, it never sees the instance running. */
const LIST_PATHS: Record<ProviderId, RegExp> = {
  runpod: /\/pods\/?$/,
  vastai: /\/instances\/?$/,
  lambda: /\/instances\/?$/,
};
const LAUNCH_BODIES: Record<ProviderId, object> = {
  runpod: { gpu_type: 'rtx-a6000' },
  vastai: { gpu_type: 'rtx-a6000' },
  lambda: { gpu_type: 'h100-80gb-sxm', region: 'us-east-1' },
};

const Charge = z.object({ amount_micros: z.number(), description: z.string() });
const Row = z.object({
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  price_per_hour_micros: z.number().nullable(),
});

describe.each(['runpod', 'vastai', 'lambda'] as const)('%s: terminated before our first look', (provider) => {
  it("is charged once, price × the time from the provider's start to the confirmed end, never $0", async () => {
    const account = await t.connectedAccount(provider);
    const sim = t.sims[provider];
    // Lambda's boot is long enough that metering from the first look instead of the accepted launch shows.
    const bootMs = provider === 'lambda' ? 2_500 : 300;
    sim.control.setBootDelay(bootMs);
    sim.control.setLatency(120_000, { match: { method: 'GET', path: LIST_PATHS[provider]! } });
    try {
      const launched = await t.http
        .post('/v1/compute/launch')
        .set(account.auth)
        .send({ provider, ...LAUNCH_BODIES[provider] });
      expect(launched.status).toBe(201);
      const providerStart = await eventually(
        'the provider to report it running',
        async () => {
          const seen = await t.deps.adapters[provider].getInstance(account.simKey, launched.body.id);
          if (seen?.status !== 'running') return undefined;
          if (provider !== 'lambda') return seen.startedAt ? Date.parse(seen.startedAt) : undefined;
          // Lambda bills from the launch it accepted: the simulator's record of that moment.
          const created = sim.control.instances(account.simKey).find((i) => i.id === launched.body.id)?.createdAt;
          return created ? Date.parse(created) : undefined;
        },
        30_000,
        100,
      );
      // Our record has not seen it run: the observer's look is held back.
      const before = await t.db.pool.one(sql.type(Row)`
        SELECT started_at, ended_at, price_per_hour_micros FROM instances
          WHERE provider_instance_id = ${launched.body.id}`);
      expect(before.started_at).toBeNull();

      const asked = Date.now();
      const ended = await t.http.post(`/v1/compute/${launched.body.id}/terminate`).set(account.auth);
      const answered = Date.now();
      expect(ended.status).toBe(200);
      const row = await t.db.pool.one(sql.type(Row)`
        SELECT started_at, ended_at, price_per_hour_micros FROM instances
          WHERE provider_instance_id = ${launched.body.id}`);
      const startedAt = Date.parse(row.started_at!);
      if (provider === 'lambda') {
        // From the accepted create: once Lambda had made it (its record, to the ms), before it ran (the boot delay).
        expect(startedAt).toBeGreaterThanOrEqual(providerStart);
        expect(startedAt).toBeLessThan(providerStart + bootMs);
      } else {
        // The start the provider reported (RunPod's in whole seconds).
        expect(Math.abs(startedAt - providerStart)).toBeLessThanOrEqual(1_000);
      }
      expect(Date.parse(row.ended_at!)).toBeGreaterThanOrEqual(asked - 1_000);
      expect(Date.parse(row.ended_at!)).toBeLessThanOrEqual(answered + 1_000);

      const charges = await t.db.pool.any(sql.type(Charge)`
        SELECT amount_micros, description FROM ledger_entries WHERE account_id = ${account.accountId} AND
          type = 'instance_charge'`);
      expect(charges).toHaveLength(1);
      const price = row.price_per_hour_micros!;
      expect(price).toBeGreaterThan(0);
      // Exactly price × the time metered, start to the confirmed end (a micro of rounding).
      const ranMs = Date.parse(row.ended_at!) - startedAt;
      expect(-charges[0]!.amount_micros).toBeGreaterThan(0);
      expect(Math.abs(-charges[0]!.amount_micros - (price * ranMs) / 3_600_000)).toBeLessThanOrEqual(1);
      expect(charges[0]!.description).toContain("the provider's price");
    } finally {
      sim.control.resetFaults();
    }
  });
});
