/**
 * Classic cron vs Temporal Schedules: for a table of expressions, the next 20 firing times the Temporal
 * Schedule itself reports (describe().info.nextActionTimes, on the real dev server) equal cron-parser's.
 * Classic cron OR-s a restricted day-of-month with a restricted day-of-week; Temporal AND-s calendar fields,
 * so the service translates those expressions into two calendar specs. Also: the API's cron validation.
 */
import { CronExpressionParser } from 'cron-parser';
import { createTestContext, type TestContext } from '../helpers/context';
import { createScheduleClient, scheduleSpec } from '../../src/workflow-clients/schedules';
import { temporalScheduleId } from '../../workflows/contracts/schedules';
import { eventually } from '../helpers/process';

jest.setTimeout(120_000);

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

const TABLE = [
  '0 0 1 * 1', // the 1st of every month OR every Monday
  '*/15 9-17 * * 1-5', // every quarter hour in office hours on weekdays
  '0 0 29 2 *', // leap days only
  '0 12 * JAN,JUL SUN', // noon on Sundays in January and July
  '30 6 13 * FRI', // the 13th OR every Friday
  '0 */6 * * *', // every six hours
  '5 4 * * sun', // lower-case day name
  '0 0 1,15 * *', // two days of the month
  '0 22 * * 1-5', // weekday evenings
  '0 0 */10 * 0', // every 10th day from the 1st (restricted day-of-month) OR Sundays
  '15 3 1-7 * 1', // first seven days OR Mondays
  '0 0 31 * *', // months with a 31st
  '0 9 1 JAN-MAR,OCT *', // first of some months
  '*/30 * * * 6,0', // weekends, twice an hour
];

/** The next `count` times cron-parser says the classic expression fires, strictly after `after` (UTC). */
function cronParserTimes(expression: string, after: Date, count: number): string[] {
  const it = CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: after });
  return Array.from({ length: count }, () => it.next().toDate().toISOString());
}

describe('Temporal fires exactly when classic cron does', () => {
  it.concurrent.each(TABLE)('%s: the next 20 action times from describe() equal cron-parser', async (cron) => {
    const { auth } = await t.newAccount();
    const created = await t.http
      .post('/v1/schedules')
      .set(auth)
      .send({ name: 'cron table', gpu: 'rtx-4090', template: 'pytorch', cron });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // Nothing may run from this table: pause it (the spec stays; future action times are still computed).
    await t.http.put(`/v1/schedules/${id}`).set(auth).send({ status: 'paused' }).expect(200);
    const client = createScheduleClient({
      temporal: t.deps.temporal,
      timing: { pollIntervalMs: 1000, meterIntervalMs: 1000 },
    });
    const handle = t.temporal.schedule.getHandle(temporalScheduleId(id));

    const now = new Date();
    const fromTemporal: string[] = [];
    let startAt: Date | undefined;
    // describe() lists a limited number of future times; move the spec's startAt past the last one for the rest.
    // Each call is tried again while the dev server answers a transient error: the table's schedules are
    // updated and described all at once, and a loaded server's own deadline ("context deadline exceeded") hit
    // one describe in a whole-suite run. Both calls are safe to repeat.
    while (fromTemporal.length < 20) {
      const from = startAt;
      if (from)
        await eventually("the schedule's start moved", () =>
          handle.update((prev) => ({ ...prev, spec: scheduleSpec({ cron }, from) })).then(() => true),
        );
      const times = (await eventually('the schedule described', () => client.describe(id))).info.nextActionTimes.map(
        (d) => d.toISOString(),
      );
      if (times.length === 0) break; // Temporal's calendar ends with the year 2099
      fromTemporal.push(...times.filter((x) => !fromTemporal.includes(x)));
      startAt = new Date(Date.parse(fromTemporal[fromTemporal.length - 1]!) + 1000);
    }
    const expected = cronParserTimes(cron, now, 20);
    // Only `0 0 29 2 *` runs out: its 19th and 20th leap days (2104, 2108) lie past Temporal's last calendar year.
    const withinTemporalYears = expected.filter((x) => Number(x.slice(0, 4)) < 2100);
    expect(withinTemporalYears.length).toBeGreaterThanOrEqual(cron === '0 0 29 2 *' ? 18 : 20);
    expect(fromTemporal.slice(0, 20)).toEqual(withinTemporalYears);
    // The record's next_run_at is the first of them once active again.
    await handle.update((prev) => ({ ...prev, spec: scheduleSpec({ cron }) }));
    const active = await t.http.put(`/v1/schedules/${id}`).set(auth).send({ status: 'active' }).expect(200);
    expect(active.body.next_run_at).toBe(cronParserTimes(cron, new Date(), 1)[0]);
    await t.http.delete(`/v1/schedules/${id}`).set(auth).expect(200);
  });
});

describe('cron validation', () => {
  const base = { name: 'bad cron', gpu: 'rtx-4090', template: 'pytorch' };
  it.concurrent.each([
    ['0 0 * *', /expected 5 space-separated fields/],
    ['0 0 0 * * *', /expected 5 space-separated fields/],
    ['61 * * * *', /minute: 61 is outside 0-59/],
    ['0 24 * * *', /hour: 24 is outside 0-23/],
    ['0 0 32 * *', /day of month: 32 is outside 1-31/],
    ['0 0 * 13 *', /month: 13 is outside 1-12/],
    ['0 0 * * 8', /day of week: 8 is outside 0-7/],
    ['0 0 * FOO *', /month: "FOO" is not a number 1-12 or one of JAN/],
    ['*/0 * * * *', /minute: step must be at least 1/],
    ['0 0 L * *', /day of month: "L" is not/],
    ['0 0 * * 1#2', /day of week: "1#2" is not/],
    ['@daily', /expected 5 space-separated fields/],
    ['0 0 30 2 *', /invalid cron expression: /],
    ['0 0 5-1 * *', /invalid cron expression: .*5-1/],
    ['', /invalid cron expression: the expression is empty/],
  ])('%j is a 400 that says why', async (cron, reason) => {
    const { auth } = await t.newAccount();
    const res = await t.http
      .post('/v1/schedules')
      .set(auth)
      .send({ ...base, cron });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    const detail = (res.body.error.details as { path: string; message: string }[]).find((d) => d.path === 'cron');
    expect(detail?.message).toMatch(reason);
    expect(res.body.error.message).toMatch(/cron/);
    expect((await t.http.get('/v1/schedules').set(auth)).body.data).toEqual([]);
  });
});
