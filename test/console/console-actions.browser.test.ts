/**
 * Acting through the console in a real Chromium against the real stack (API, worker, Temporal, Postgres,
 * simulators): a fresh account gets from sign-in to a running instance through the console alone (connect a
 * provider key, add an SSH key, launch), and its instance page shows the API's cost to date; a schedule and a
 * webhook are created, edited and deleted, an alert created and deleted, the API showing each step; a job run
 * from the console shows its exit code and cost, and its log live while it runs; the wizard's idle-stop setting
 * reaches the instance's record; a launch the balance cannot cover shows the 402's numbers; a read-only key sees
 * every mutating control disabled with the reason; a fleet of 1,000 instances is listed in full, and only the
 * managed one offers actions.
 */
import type { Page } from 'playwright-core';
import { dollars } from '../../console/src/format';
import { RUNPOD_SIM_GPUS } from '../../simulators/runpod';
import type { TestContext } from '../helpers/context';
import { ed25519Key } from '../fixtures/ssh-keys';
import { screenshot, seriousA11yViolations } from '../helpers/browser';
import { startConsoleStack, signedInPage, type ConsoleStack } from '../helpers/console';
import { eventually } from '../helpers/process';
import { terminated } from '../helpers/terminate';
import { startReceiver, startWebhookDispatcher } from '../helpers/webhooks';

jest.setTimeout(180_000);

/** Labels of every button that changes something; a read-only key must see each of them disabled. */
const WRITE_ACTIONS = new RegExp(
  '^(Stop|Start|Terminate|Launch at .*|Create alert|Delete|Pause|Resume|Run now|Send test event|Retry|Verify|' +
    'Make default|Pay with Stripe|Create key|Revoke|Connect and verify|Disconnect|Add SSH key|Register endpoint|' +
    'Edit|Save|Create schedule|Cancel job)$',
);

let stack: ConsoleStack;
let t: TestContext;

async function pricesFromSimulators(): Promise<void> {
  await t.recordSimulatorPrices();
  await t.deps.pricing.reload();
}

/** Launch wizard: the GPU, its offers (plan), the first offer at RunPod, the plan of that body. */
async function planRunPodLaunch(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Launch', exact: true }).click();
  await page.getByLabel('GPU', { exact: true }).selectOption(RUNPOD_GPU_SLUG);
  await page.getByRole('button', { name: 'Find offers' }).click();
  const row = page.getByRole('row').filter({ hasText: 'RunPod' }).first();
  await row.getByRole('button', { name: 'Choose' }).click();
  await page.getByRole('button', { name: 'Review the plan' }).click();
  await page.getByRole('heading', { name: '4. Plan' }).waitFor();
}

let RUNPOD_GPU_SLUG: string;

beforeAll(async () => {
  stack = await startConsoleStack();
  t = stack.t;
  await pricesFromSimulators();
  const snapshot = (await (await fetch(`${stack.base}/v1/pricing`)).json()) as {
    gpu_types: { gpu_type: string; offers: { provider: string }[] }[];
  };
  RUNPOD_GPU_SLUG = snapshot.gpu_types.find((g) => g.offers.some((o) => o.provider === 'runpod'))!.gpu_type;
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/**
 * The console's own rendering of a dollar amount at four decimals: `toFixed` would differ from it on a half
 * (0.00425 is just below its decimal as a double), so the page's formatter is used (test/console/money-format).
 */
const dollars4 = (n: number) => dollars(n, 4);

test("a fresh account reaches a running instance through the console alone; its cost equals the API's", async () => {
  const a = await t.newAccount('fresh');
  const simKey = t.sims.runpod.createKey();
  const page = await signedInPage(stack, a.apiKey);
  // The empty fleet says what is missing and links to it.
  const steps = page.getByRole('region', { name: 'Get started' });
  await steps.waitFor();
  await screenshot(page, 'get-started');
  await steps.getByRole('link', { name: 'Connect a key' }).click();
  await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
  // A key the provider refuses is refused where it was typed, with the provider's reason; nothing is saved.
  await page.getByLabel('Provider', { exact: true }).selectOption('runpod');
  await page.getByLabel('API key', { exact: true }).fill('not-a-runpod-key');
  await page.getByRole('button', { name: 'Connect and verify' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: '422 provider_error' })
    .filter({ hasText: 'Nothing was saved' })
    .waitFor();
  await page.getByLabel('API key', { exact: true }).fill(simKey);
  await page.getByRole('button', { name: 'Connect and verify' }).click();
  const answer = page.getByTestId('connect-answer');
  await answer.waitFor();
  const verify = (await t.http.post('/v1/settings/providers/runpod/verify').set(a.auth).expect(200)).body as {
    message: string;
  };
  expect(await answer.textContent()).toBe(`RunPod: key accepted: ${verify.message}`);
  await page.getByRole('row').filter({ hasText: 'RunPod' }).getByText('valid', { exact: true }).waitFor();
  // The SSH key: the instructions to make one, then the public key pasted.
  await page.getByText('No key yet? Make one').click();
  await page.getByText('ssh-keygen -t ed25519').waitFor();
  const sshForm = page.getByRole('form', { name: 'Add an SSH key' });
  await sshForm.getByLabel('Name').fill('laptop');
  await sshForm.getByLabel('Public key').fill(ed25519Key('me@laptop'));
  await sshForm.getByRole('button', { name: 'Add SSH key' }).click();
  // The account's first API key is named `default` too: the cell looked for is the SSH table's.
  await page.getByRole('table', { name: 'SSH keys' }).getByRole('cell', { name: 'default', exact: true }).waitFor();
  expect(((await t.http.get('/v1/ssh-keys').set(a.auth).expect(200)).body as { data: unknown[] }).data).toHaveLength(1);

  await planRunPodLaunch(page);
  await page.getByRole('status').filter({ hasText: 'admit it' }).waitFor();
  const price = (await page.getByTestId('plan-price').textContent()) ?? '';
  expect(price).toMatch(/^\$[\d.]+\/h$/);
  await page.getByRole('button', { name: /^Launch at / }).click();
  await page.getByTestId('launch-status').filter({ hasText: 'running' }).waitFor({ timeout: 60_000 });
  expect(t.sims.runpod.control.instances(simKey)).toHaveLength(1);
  const [created] = t.sims.runpod.control.instances(simKey);

  // The instance page: price, SSH, timeline; terminate there, then its cost to date is the API's.
  await page.getByRole('link', { name: 'Open the instance page' }).click();
  await page.getByRole('heading', { name: /running/ }).waitFor();
  await page.getByRole('list', { name: 'Timeline' }).getByText('running').waitFor();
  await screenshot(page, 'instance');
  expect(await page.getByText(price, { exact: true }).count()).toBe(1);
  expect(await seriousA11yViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Terminate' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Terminate' }).click();
  await eventually('the provider to drop the instance', () =>
    t.sims.runpod.control.instances(simKey).length === 0 ? true : undefined,
  );
  const record = await eventually(
    'the page to show the ended instance with the cost the API gives',
    async () => {
      const body = (await t.http.get(`/v1/compute/${created!.id}`).set(a.auth).expect(200)).body as {
        status: string;
        cost: { to_date: number };
      };
      const shown = await page.getByTestId('cost-to-date').textContent();
      return body.status === 'terminated' && shown === dollars4(body.cost.to_date) ? body : undefined;
    },
    60_000,
  );
  expect(record.cost.to_date).toBeGreaterThan(0);
  // Ended instances are browsable with what each cost.
  await page.getByRole('link', { name: 'Ended instances' }).click();
  const ended = page.locator(`tr[data-instance-id="${created!.id}"]`);
  await ended.getByText(dollars4(record.cost.to_date)).waitFor();
  await screenshot(page, 'ended-instances');
  expect(await seriousA11yViolations(page)).toEqual([]);

  // The account's only charges are today's: the spend chart is $0 on every day before today.
  await page.getByRole('link', { name: 'Spend', exact: true }).click();
  await page.getByText("The chart's numbers").click();
  const days = page.getByTestId('spend-days').locator('tbody tr');
  await days.last().waitFor();
  const rows = await days.evaluateAll((trs) =>
    trs.map((tr) => ({
      day: (tr as unknown as { dataset: { day: string } }).dataset.day,
      cells: Array.from(
        (tr as unknown as { querySelectorAll(s: string): { textContent: string }[] }).querySelectorAll('td'),
      ).map((c) => c.textContent),
    })),
  );
  const today = new Date().toISOString().slice(0, 10);
  expect(rows[0]!.day).toBe(`${today.slice(0, 8)}01`);
  expect(rows[rows.length - 1]!.day).toBe(today);
  expect(rows.slice(0, -1).filter((r) => r.cells[0] !== '$0.0000' || r.cells[1] !== '$0.0000')).toEqual([]);
  const charged = (
    (await t.http.get('/v1/billing/transactions?type=instance_charge').set(a.auth).expect(200)).body as {
      data: { amount: number }[];
    }
  ).data.reduce((sum, c) => sum - c.amount, 0);
  expect(rows[rows.length - 1]!.cells).toEqual([dollars4(charged), dollars4(charged)]);
  await screenshot(page, 'spend-by-day');
});

test.concurrent(
  'a schedule and a webhook created, edited and deleted, an alert created and deleted; the API shows each step',
  async () => {
    const a = await t.connectedAccount('runpod');
    const api = async <T>(path: string): Promise<T> =>
      (await (await fetch(`${stack.base}${path}`, { headers: a.auth })).json()) as T;
    type Listed<T> = { data: T[] };
    const page = await signedInPage(stack, a.apiKey);

    // Schedule: the preview of the cron, then create, edit, pause, delete.
    await page.getByRole('link', { name: 'Schedules', exact: true }).click();
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Name').fill('nightly');
    await form.getByLabel('Cron (UTC)').fill('61 * * * *');
    await form.getByTestId('cron-preview').filter({ hasText: 'Not a valid cron' }).waitFor();
    await form.getByLabel('Cron (UTC)').fill('15 3 * * *');
    const preview = form.getByTestId('cron-preview').locator('time');
    await preview.first().waitFor();
    expect(await preview.count()).toBe(5);
    await screenshot(page, 'schedule-new');
    const firstRun = await preview.first().getAttribute('datetime');
    await form.getByLabel('GPU').selectOption(RUNPOD_GPU_SLUG);
    await form.getByRole('button', { name: 'Create schedule' }).click();
    type ScheduleRec = { id: string; name: string; cron: string; status: string; next_run_at: string | null };
    const [made] = await eventually('the API to list the schedule', async () => {
      const list = await api<Listed<ScheduleRec>>('/v1/schedules');
      return list.data.length === 1 ? list.data : undefined;
    });
    expect(made).toMatchObject({ name: 'nightly', cron: '15 3 * * *', status: 'active' });
    expect(made!.next_run_at && Date.parse(made!.next_run_at)).toBe(Date.parse(firstRun!));
    const card = page.locator(`article[data-schedule-id="${made!.id}"]`);
    await card.getByRole('button', { name: 'Edit' }).click();
    await card.getByLabel('Cron (UTC)').fill('30 4 * * 1');
    await card.getByRole('button', { name: 'Save' }).click();
    await eventually('the API to show the new cron', async () =>
      (await api<ScheduleRec>(`/v1/schedules/${made!.id}`)).cron === '30 4 * * 1' ? true : undefined,
    );
    await card.getByText('30 4 * * 1').waitFor();
    await card.getByRole('button', { name: 'Pause' }).click();
    await card.getByRole('button', { name: 'Resume' }).waitFor();
    expect((await api<ScheduleRec>(`/v1/schedules/${made!.id}`)).status).toBe('paused');
    await card.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await card.waitFor({ state: 'detached' });
    expect((await api<Listed<ScheduleRec>>('/v1/schedules')).data).toEqual([]);

    // Webhook: register (the secret shown once), edit, a test delivery in the log, delete.
    const receiver = await startReceiver();
    const dispatcher = await startWebhookDispatcher({
      client: t.temporal,
      taskQueue: t.deps.temporal.taskQueue,
      databaseUrl: t.db.url,
      tickMs: 500,
    });
    try {
      await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
      const register = page.getByRole('form', { name: 'Register a webhook endpoint' });
      await register.getByLabel('Endpoint URL').fill(receiver.url('/first'));
      await register.getByLabel('alert.triggered').check();
      await register.getByRole('button', { name: 'Register endpoint' }).click();
      expect(await page.getByTestId('webhook-secret').textContent()).toMatch(/whsec_/);
      type HookRec = { id: string; url: string; events: string[]; active: boolean };
      const [hook] = (await api<Listed<HookRec>>('/v1/webhooks')).data;
      expect(hook).toMatchObject({ url: receiver.url('/first'), events: ['instance.started', 'alert.triggered'] });
      const hookCard = page.locator(`article[data-webhook-id="${hook!.id}"]`);
      await hookCard.getByRole('button', { name: 'Edit' }).click();
      const edit = hookCard.getByRole('form', { name: /^Edit / });
      await edit.getByLabel('Endpoint URL').fill(receiver.url('/second'));
      await edit.getByLabel('instance.started').uncheck();
      await edit.getByRole('button', { name: 'Save' }).click();
      await hookCard.getByRole('heading', { name: receiver.url('/second') }).waitFor();
      expect(await api<HookRec>(`/v1/webhooks/${hook!.id}`)).toMatchObject({
        url: receiver.url('/second'),
        events: ['alert.triggered'],
      });
      await hookCard.getByRole('button', { name: 'Send test event' }).click();
      await eventually('the test event to reach the endpoint', () =>
        receiver.on('/second').some((r) => r.payload.type === 'webhook.test') ? true : undefined,
      );
      // Sending opened the log; it refreshes on its own and lists the delivery with its attempt.
      await hookCard.getByRole('cell', { name: /webhook\.test/ }).waitFor({ timeout: 30_000 });
      await screenshot(page, 'webhook');
      await hookCard.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await hookCard.waitFor({ state: 'detached' });
      expect((await api<Listed<HookRec>>('/v1/webhooks')).data).toEqual([]);
    } finally {
      await dispatcher.stop();
      await receiver.close();
    }

    // Alert: create a budget alert, then delete it.
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.getByLabel('Spend reaches ($)').fill('75');
    await page.getByRole('button', { name: 'Create alert' }).click();
    await page.getByRole('cell', { name: '$75.00' }).waitFor();
    type AlertRec = { id: string; type: string; threshold_dollars: number | null };
    expect((await api<Listed<AlertRec>>('/v1/alerts')).data).toEqual([
      expect.objectContaining({ type: 'budget_limit', threshold_dollars: 75 }),
    ]);
    await page.getByRole('row').filter({ hasText: '$75.00' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No alerts.').waitFor();
    expect((await api<Listed<AlertRec>>('/v1/alerts')).data).toEqual([]);
  },
);

test.concurrent('a job run from the console shows its exit code and its cost when it ends', async () => {
  const a = await t.connectedAccount('runpod');
  const page = await signedInPage(stack, a.apiKey);
  await page.getByRole('link', { name: 'Jobs', exact: true }).click();
  await page.getByText('No jobs yet.').waitFor();
  await page.getByRole('link', { name: 'Run a job' }).first().click();
  await page.getByLabel('GPU', { exact: true }).selectOption(RUNPOD_GPU_SLUG);
  await page.getByRole('button', { name: 'Find offers' }).click();
  await page.getByRole('row').filter({ hasText: 'RunPod' }).first().getByRole('button', { name: 'Choose' }).click();
  // Past the observer's boot looks, so the attempt is metered before it exits (docs/jobs.md).
  await page.getByLabel('Command').fill('echo first line; sleep 4; echo second line; exit 3');
  await page.getByRole('button', { name: 'Review the plan' }).click();
  await page.getByRole('status').filter({ hasText: 'admit it' }).waitFor();
  await screenshot(page, 'run-job');
  await page.getByRole('button', { name: 'Run the job' }).click();
  await page.waitForURL(/\/console\/jobs\/job_/);
  const jobId = decodeURIComponent(page.url().split('/').pop()!);
  await page.getByTestId('job-status').filter({ hasText: 'failed' }).waitFor({ timeout: 90_000 });
  const job = (await t.http.get(`/v1/jobs/${jobId}`).set(a.auth).expect(200)).body as {
    status: string;
    exit_code: number;
    cost: number;
    attempts: unknown[];
  };
  expect(job).toMatchObject({ status: 'failed', exit_code: 3 });
  expect(job.cost).toBeGreaterThan(0);
  await page.getByTestId('job-exit-code').filter({ hasText: '3' }).waitFor();
  await page
    .getByTestId('job-cost')
    .filter({ hasText: dollars4(job.cost) })
    .waitFor();
  await screenshot(page, 'job');
  expect(await seriousA11yViolations(page)).toEqual([]);
  await page.getByRole('link', { name: 'Jobs', exact: true }).first().click();
  const row = page.locator(`tr[data-job-id="${jobId}"]`);
  await row.getByText('failed').waitFor();
  expect(await row.locator('td').allTextContents()).toEqual(
    expect.arrayContaining(['failed', String(job.attempts.length), dollars4(job.cost), '3']),
  );
  expect(await seriousA11yViolations(page)).toEqual([]);
});

test.concurrent("a job's log shows its lines while it runs, then the whole log with the exit code", async () => {
  const a = await t.connectedAccount('runpod');
  const made = await t.http
    .post('/v1/jobs')
    .set(a.auth)
    .send({
      gpu: RUNPOD_GPU_SLUG,
      template: 'pytorch',
      providers: ['runpod'],
      // The second line comes long after the first: the page must show the first while the job still runs.
      command: 'echo first line; sleep 12; echo second line; exit 3',
    })
    .expect(201);
  const jobId = (made.body as { id: string }).id;
  const page = await signedInPage(stack, a.apiKey);
  await page.goto(`${stack.base}/console/jobs/${encodeURIComponent(jobId)}`);
  const lines = page.getByTestId('log-lines');
  await lines.filter({ hasText: 'first line' }).waitFor({ timeout: 90_000 });
  expect(await page.getByTestId('log-state').textContent()).toMatch(/^Live/);
  expect(await lines.textContent()).not.toContain('second line');
  await lines.filter({ hasText: 'second line' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('job-status').filter({ hasText: 'failed' }).waitFor({ timeout: 60_000 });
  // Once ended the attempt's whole log is read as text: both lines, in order.
  await eventually('the whole log after the end', async () =>
    /first line\nsecond line/.test((await lines.textContent()) ?? '') &&
    !/^Live/.test((await page.getByTestId('log-state').textContent()) ?? '')
      ? true
      : undefined,
  );
});

test("the wizard's idle-stop setting (off by default) reaches the plan, the launch and the record", async () => {
  const a = await t.connectedAccount('runpod');
  const page = await signedInPage(stack, a.apiKey);
  await page.getByRole('link', { name: 'Launch', exact: true }).click();
  await page.getByLabel('GPU', { exact: true }).selectOption(RUNPOD_GPU_SLUG);
  await page.getByRole('button', { name: 'Find offers' }).click();
  await page.getByRole('row').filter({ hasText: 'RunPod' }).first().getByRole('button', { name: 'Choose' }).click();
  const idle = page.getByLabel('Stop when idle');
  expect(await idle.isChecked()).toBe(false);
  await idle.check();
  await page.getByLabel('Every GPU below (%)').fill('15');
  await page.getByLabel('For (minutes)').fill('45');
  expect(await seriousA11yViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Review the plan' }).click();
  await page.getByRole('status').filter({ hasText: 'admit it' }).waitFor();
  await page.getByRole('button', { name: /^Launch at / }).click();
  await page.getByTestId('launch-idle-stop').filter({ hasText: 'below 15% for 45 min' }).waitFor({ timeout: 60_000 });

  const [created] = t.sims.runpod.control.instances(a.simKey);
  expect(t.sims.runpod.control.instances(a.simKey)).toHaveLength(1);
  const listed = (await t.http.get('/v1/compute').set(a.auth).expect(200)).body.data as {
    id: string;
    idle_stop?: unknown;
  }[];
  expect(listed.find((i) => i.id === created!.id)?.idle_stop).toEqual({
    utilization_below_percent: 15,
    for_minutes: 45,
  });
  await terminated(t.http, a.auth, created!.id);
});

test('a launch the balance cannot cover shows the 402 with its numbers, and nothing can be launched', async () => {
  const a = await t.newAccount('one cent', { credit: 0.01 });
  const simKey = t.sims.runpod.createKey();
  await t.http.post('/v1/settings/providers').set(a.auth).send({ provider: 'runpod', api_key: simKey }).expect(201);
  await t.http.post('/v1/ssh-keys').set(a.auth).send({ name: 'laptop', public_key: ed25519Key() }).expect(201);
  const page = await signedInPage(stack, a.apiKey);
  await page.getByRole('link', { name: 'Launch', exact: true }).click();
  await page.getByLabel('GPU', { exact: true }).selectOption(RUNPOD_GPU_SLUG);
  await page.getByRole('button', { name: 'Find offers' }).click();
  // No offer fits the balance: the plan answers the launch's own refusal, with its numbers.
  const alert = page.getByRole('alert').filter({ hasText: '402 insufficient_balance' });
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/\$0\.01 is available/);
  expect(await page.getByRole('button', { name: 'Choose' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: /^Launch at / }).count()).toBe(0);
  expect(t.sims.runpod.control.instances(simKey)).toHaveLength(0);
});

test('a read-only key sees every page with every mutating control disabled, the reason in its title', async () => {
  const a = await t.connectedAccount('runpod');
  await t.http.post('/v1/alerts').set(a.auth).send({ type: 'budget_limit', threshold_dollars: 50 }).expect(201);
  const launched = await t.http
    .post('/v1/compute/launch')
    .set(a.auth)
    .send({ provider: 'runpod', gpu_type: RUNPOD_GPU_SLUG })
    .expect(201);
  const instanceId = (launched.body as { id: string }).id;
  await t.http
    .post('/v1/schedules')
    .set(a.auth)
    .send({ name: 'nightly', gpu: RUNPOD_GPU_SLUG, template: 'pytorch', cron: '0 3 * * *' })
    .expect(201);
  // Through the console's API: its webhook policy lets an endpoint on this machine be registered.
  const hook = await fetch(`${stack.base}/v1/webhooks`, {
    method: 'POST',
    headers: { ...a.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', events: ['instance.started'] }),
  });
  expect(hook.status).toBe(201);
  const created = await t.http
    .post('/v1/api-keys')
    .set(a.auth)
    .send({ name: 'viewer', scopes: ['read'] })
    .expect(201);
  const page = await signedInPage(stack, (created.body as { api_key: string }).api_key);
  await page.locator('tr[data-instance-id]').first().waitFor();
  expect(await page.getByRole('button', { name: 'Terminate' }).count()).toBeGreaterThan(0);
  const seen = new Set<string>();
  const enabledWrites: string[] = [];
  const unexplained: string[] = [];
  /** Every button of the page once each list has shown (`ready`), read in one go: none can shift meanwhile. */
  const check = async (where: string, ready: string[]) => {
    for (const label of ready) await page.getByRole('button', { name: label, exact: true }).first().waitFor();
    const buttons = await page.getByRole('button').evaluateAll((all) =>
      all.map((b) => {
        const button = b as unknown as { textContent: string | null; disabled: boolean; title: string };
        return { label: (button.textContent ?? '').trim(), disabled: button.disabled, title: button.title };
      }),
    );
    for (const { label, disabled, title } of buttons) {
      if (!WRITE_ACTIONS.test(label)) continue;
      seen.add(label);
      if (!disabled) enabledWrites.push(`${where}: ${label}`);
      else if (!/^This API key lacks the "[a-z:]+" scope\.$/.test(title)) unexplained.push(`${where}: ${label}`);
    }
  };
  const pages: [string, string[]][] = [
    ['Fleet', ['Terminate']],
    ['Jobs', []],
    ['Spend', ['Pay with Stripe']],
    ['Alerts', ['Delete']],
    ['Schedules', ['Pause']],
    ['Webhooks', ['Send test event']],
    ['Settings', ['Verify', 'Delete', 'Revoke']],
  ];
  for (const [name, ready] of pages) {
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name, exact: true }).waitFor();
    await check(name, ready);
  }
  await page.goto(`${stack.base}/console/instances/${encodeURIComponent(instanceId)}`);
  await page.getByTestId('cost-to-date').waitFor();
  await check('Instance', ['Terminate']);
  expect(enabledWrites).toEqual([]);
  expect(unexplained).toEqual([]);
  // The pages above hold a control of every kind the key may not use.
  expect([...seen].sort()).toEqual(
    expect.arrayContaining([
      'Create alert',
      'Create key',
      'Create schedule',
      'Connect and verify',
      'Add SSH key',
      'Register endpoint',
      'Edit',
      'Pause',
      'Send test event',
      'Terminate',
      'Pay with Stripe',
    ]),
  );
  await terminated(t.http, a.auth, instanceId);
});

test('1,000 instances listed in full: the managed one can be terminated, the 999 unmanaged offer none', async () => {
  const a = await t.connectedAccount('runpod');
  const launched = await t.http
    .post('/v1/compute/launch')
    .set(a.auth)
    .send({ provider: 'runpod', gpu_type: RUNPOD_GPU_SLUG, name: 'ours' })
    .expect(201);
  const managedId = (launched.body as { id: string }).id;
  const gpu = RUNPOD_SIM_GPUS[0]!.id;
  for (let i = 0; i < 999; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, 999 - i) }, (_, k) =>
        fetch(`${t.sims.runpod.baseUrl}/pods`, {
          method: 'POST',
          headers: { authorization: `Bearer ${a.simKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `worker-${i + k}`, image: 'ubuntu:22.04', gpu: { id: gpu, count: 1 } }),
        }).then((r) => expect(r.status).toBe(201)),
      ),
    );
  }
  await eventually('the fleet view to hold 1,000 instances', async () => {
    const res = await t.http.get('/v1/compute?refresh=true').set(a.auth);
    return (res.body as { data: unknown[] }).data.length === 1000 ? true : undefined;
  });
  const page = await signedInPage(stack, a.apiKey);
  // A function, not a string: the console's CSP forbids eval, and Playwright would evaluate a string with it.
  type Doc = { document: { querySelectorAll(selector: string): { length: number } } };
  await page.goto(`${stack.base}/console/fleet`);
  await page.waitForFunction(
    () => (globalThis as unknown as Doc).document.querySelectorAll('tr[data-instance-id]').length === 1000,
  );
  const ids = await page
    .locator('tr[data-instance-id]')
    .evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { instanceId: string } }).dataset.instanceId));
  expect(new Set(ids).size).toBe(1000);
  // Each instance made at RunPod says so and offers nothing this service would answer 404 to.
  expect(await page.locator('tr[data-instance-id]').filter({ hasText: 'unmanaged' }).count()).toBe(999);
  expect(await page.getByRole('button', { name: 'Terminate' }).count()).toBe(1);
  const unmanaged = page.locator('tr[data-instance-id]').filter({ hasText: 'unmanaged' });
  expect(await unmanaged.getByRole('button', { name: /^(Stop|Terminate)$/ }).count()).toBe(0);
  expect(await unmanaged.filter({ hasText: 'at the provider' }).count()).toBe(999);
  const ours = page.locator(`tr[data-instance-id="${managedId}"]`);
  await ours.getByRole('button', { name: 'Terminate' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Terminate' }).click();
  const atRunPod = () => t.sims.runpod.control.instances(a.simKey);
  await eventually('our instance to leave RunPod', () =>
    atRunPod().some((i) => i.id === managedId) ? undefined : true,
  );
  expect(atRunPod()).toHaveLength(999);
  // How fast the page is, beside the same rows as static HTML: `npm run bench:list` (docs/fleet-view.md).
});
