import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { testActivityDeps } from '../helpers/context';

let db: TestDatabase;
let temporal: TemporalTestEnv;
beforeAll(async () => {
  [db, temporal] = await Promise.all([createTestDatabase(), createTemporalTestEnv()]);
});
afterAll(async () => {
  await temporal.close();
  await db.drop();
});

describe('the worker on the real Temporal dev server', () => {
  it('runs the health-probe workflow and its activity, and the run is visible by its id', async () => {
    const { taskQueue } = await temporal.startWorker(testActivityDeps(db.pool));
    const workflowId = `health-probe-${taskQueue}`;
    const result = await temporal.env.client.workflow.execute('healthProbe', {
      taskQueue,
      workflowId,
      args: [{ message: 'ping' }],
    });
    expect(result).toEqual({ echoed: 'ping', workerPid: process.pid });
    const description = await temporal.env.client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.type).toBe('healthProbe');
  });
});
