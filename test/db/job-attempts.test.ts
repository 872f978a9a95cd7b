/**
 * An attempt names its instance (`instance_id`) and counts its charges from the moment the provider's answer is
 * on the instance's row, before the job workflow has written it on the attempt (a busy worker's signal trails
 * the wrapper's first shipped output).
 */
import { sql } from 'slonik';
import { createJobQueries, type JobQueries } from '../../src/db/queries/jobs';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

let db: TestDatabase;
let jobs: JobQueries;
const ACCOUNT = 'acct_attempts';

beforeAll(async () => {
  db = await createTestDatabase();
  jobs = createJobQueries(db.pool);
  await db.pool.query(sql.unsafe`INSERT INTO accounts (id, name) VALUES (${ACCOUNT}, 'attempts')`);
});
afterAll(async () => {
  await db.drop();
});

let n = 0;
/** A job with one attempt on an instance row that carries `providerInstanceId` (null: the create not answered). */
async function attemptOn(providerInstanceId: string | null): Promise<string> {
  const i = ++n;
  const rowId = `launch-${ACCOUNT}-${i}`;
  await db.pool.query(sql.unsafe`
    INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type,
      gpu_count, price_per_hour_micros)
    VALUES (${rowId}, ${ACCOUNT}, 'h', 'runpod', ${providerInstanceId}, ${`gpuo-${i}`}, 'provisioning', 'rtx-4090',
      1, 1000000)`);
  const jobId = `job_attempts_${i}`;
  await db.pool.query(sql.unsafe`
    INSERT INTO jobs (id, account_id, idempotency_key, request_hash, name, spec, status)
    VALUES (${jobId}, ${ACCOUNT}, ${`idem-${i}`}, 'h', 'j', '{}'::jsonb, 'pending')`);
  await jobs.upsertAttempt({
    jobId,
    n: 1,
    accountId: ACCOUNT,
    instanceRowId: rowId,
    provider: 'runpod',
    spot: false,
    pricePerHourMicros: 1_000_000,
    tokenHash: Buffer.alloc(32, i),
  });
  return jobId;
}

async function charge(instanceId: string, micros: number): Promise<void> {
  await db.pool.query(sql.unsafe`
    INSERT INTO ledger_entries (id, account_id, type, amount_micros, balance_after_micros, description, instance_id,
      idempotency_key)
    VALUES (${`txn_${instanceId}_${micros}`}, ${ACCOUNT}, 'instance_charge', ${-micros}, 0, 'c', ${instanceId},
      ${`charge:${instanceId}:${micros}`})`);
}

it('names the instance and counts its charges once its row has the provider’s id, before the job did', async () => {
  const jobId = await attemptOn('pod-early');
  await charge('pod-early', 1_234);
  const [attempt] = await jobs.attempts(jobId);
  expect(attempt).toMatchObject({ instance_id: 'pod-early', cost_micros: 1_234 });
  expect((await jobs.attempt(jobId, 1))!.instance_id).toBe('pod-early');

  // The job's own word, when it comes, is the same id: nothing changes.
  await jobs.markAttemptLaunched(jobId, 1, 'pod-early', 1_000_000);
  expect((await jobs.attempts(jobId))[0]).toMatchObject({ instance_id: 'pod-early', cost_micros: 1_234 });
});

it('names no instance while the provider has not answered the create', async () => {
  const jobId = await attemptOn(null);
  expect((await jobs.attempts(jobId))[0]).toMatchObject({ instance_id: null, cost_micros: 0 });
});
