/**
 * The web console in a real Chromium against the real API (real Postgres, Temporal, the provider simulators,
 * stripe-mock): sign-in, the fleet, the price history chart, a top-up through Stripe Checkout, the
 * Content-Security-Policy and escaping of provider-supplied text, where the key lives, and accessibility.
 */
import type { Browser, Page } from 'playwright-core';
import { JS_BUDGET_BYTES, type ConsoleBuild } from '../../console/build';
import { perHour } from '../../console/src/format';
import { RUNPOD_SIM_GPUS } from '../../simulators/runpod';
import { TEST_STARTING_CREDIT_DOLLARS, type TestContext } from '../helpers/context';
import { screenshot, seriousA11yViolations } from '../helpers/browser';
import { startConsoleStack, type ConsoleStack } from '../helpers/console';
import { checkoutCompletedEvent, signedDelivery } from '../helpers/stripe';

/** An instance name set at the provider that would run script if the console rendered it as HTML. */
const HOSTILE_NAME = '<img src=x onerror="window.__xss=1">';

let stack: ConsoleStack;
let t: TestContext;
let base: string;
let browser: Browser;
let build: ConsoleBuild;
let stripe: ConsoleStack['stripe'];
let logLines: string[];
let account: Awaited<ReturnType<TestContext['connectedAccount']>>;

async function createPodAtProvider(simKey: string, name: string): Promise<string> {
  const res = await fetch(`${t.sims.runpod.baseUrl}/pods`, {
    method: 'POST',
    headers: { authorization: `Bearer ${simKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, image: 'ubuntu:22.04', gpu: { id: RUNPOD_SIM_GPUS[0]!.id, count: 1 } }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function recordPriceRefresh(at: Date): Promise<void> {
  await t.recordSimulatorPrices(at);
}

async function signIn(page: Page, key = account.apiKey): Promise<void> {
  await page.goto(`${base}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Fleet' }).waitFor();
}

beforeAll(async () => {
  stack = await startConsoleStack();
  ({ t, base, browser, build, stripe, logLines } = stack);
  account = await t.connectedAccount('runpod');
  await createPodAtProvider(account.simKey, HOSTILE_NAME);
  await createPodAtProvider(account.simKey, 'trainer-1');
  await recordPriceRefresh(new Date(Date.now() - 3_600_000));
  await recordPriceRefresh(new Date());
  await t.deps.pricing.reload();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

test('the build reports its JavaScript size, within the 250 KB gzipped budget', () => {
  expect(build.jsGzipBytes).toBeGreaterThan(0);
  expect(build.jsGzipBytes).toBeLessThanOrEqual(JS_BUDGET_BYTES);
});

test('/ leads to the console, served with a Content-Security-Policy that allows no inline script', async () => {
  const root = await fetch(`${base}/`, { redirect: 'manual' });
  expect(root.status).toBe(302);
  expect(root.headers.get('location')).toBe('/console');
  const page = await fetch(`${base}/console/fleet`);
  expect(page.status).toBe(200);
  const csp = page.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(await page.text()).not.toMatch(/<script>(?!<\/script>)/); // no inline script in the page itself
});

test('signed in, the fleet lists the instances at the provider; a hostile name is text and runs nothing', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await signIn(page);
  await page.getByText('trainer-1').waitFor();
  await page.getByText(HOSTILE_NAME, { exact: true }).waitFor();
  expect(await page.locator('table img').count()).toBe(0);
  expect(await page.evaluate('window.__xss')).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(await page.getByText(/As of:/).textContent()).toMatch(/As of: /);
  await screenshot(page, 'fleet', { height: 560, fullPage: false });
  await context.close();
});

test('the key stays out of URLs, local storage and the log; signing out forgets it', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  await signIn(page);
  await page.getByRole('link', { name: 'Spend', exact: true }).click();
  await page.getByRole('heading', { name: 'Spend' }).waitFor();
  expect(urls.length).toBeGreaterThan(3);
  expect(urls.filter((u) => u.includes(account.apiKey))).toEqual([]);
  expect(page.url()).not.toContain(account.apiKey);
  expect(await page.evaluate('JSON.stringify(localStorage)')).toBe('{}');
  expect(await page.evaluate('document.cookie')).toBe('');
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.filter((l) => l.includes(account.apiKey))).toEqual([]);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key').waitFor();
  expect(await page.evaluate('sessionStorage.length')).toBe(0);
  await context.close();
});

test("prices: on-demand and spot labelled apart; Vast.ai's spot and on-demand chart lines apart", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page);
  await page.getByRole('link', { name: 'Prices', exact: true }).click();
  await page.getByRole('heading', { name: 'Prices' }).waitFor();
  type Offer = { provider: string; price_per_hour: number; availability: number; spot: boolean };
  const snapshot = (await (await fetch(`${base}/v1/pricing`)).json()) as {
    gpu_types: { gpu_type: string; display_name: string; offers: Offer[] }[];
  };
  const lowest = (offers: Offer[], provider: string, spot: boolean) =>
    Math.min(
      ...offers
        .filter((o) => o.provider === provider && o.spot === spot && o.availability > 0)
        .map((o) => o.price_per_hour),
    );
  // A GPU Vast.ai sells both ways.
  const gpu = snapshot.gpu_types.find(
    (g) => lowest(g.offers, 'vastai', true) < Infinity && lowest(g.offers, 'vastai', false) < Infinity,
  );
  expect(gpu).toBeDefined();
  const spot = lowest(gpu!.offers, 'vastai', true);
  const onDemand = lowest(gpu!.offers, 'vastai', false);
  const row = page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: gpu!.display_name, exact: true }) });
  const vast = row.locator('td[data-provider="vastai"]');
  await vast.getByText(`${perHour(spot)} spot`, { exact: true }).waitFor();
  await vast.getByText(`${perHour(onDemand)} on-demand`, { exact: true }).waitFor();
  await row.getByRole('button', { name: 'Chart' }).click();
  type History = { offer_kind: string; data: { provider: string; timestamp: string; min_price_per_hour: number }[] };
  const historyOf = async (spot: boolean) =>
    (await (
      await fetch(`${base}/v1/pricing/history?gpu=${gpu!.gpu_type}&period=24h${spot ? '&spot=true' : ''}`)
    ).json()) as History;
  const [onDemandHistory, spotHistory] = await Promise.all([historyOf(false), historyOf(true)]);
  expect([onDemandHistory.offer_kind, spotHistory.offer_kind]).toEqual(['on_demand', 'spot']);
  expect(spotHistory.data.length).toBeGreaterThanOrEqual(2);
  // The chart of this GPU, drawn from every point of both series (waited for: the previous GPU's chart goes first).
  const chart = page.locator(
    `.chart[aria-label^="Price history of ${gpu!.display_name}:"]` +
      `[data-points="${onDemandHistory.data.length + spotHistory.data.length}"]`,
  );
  await chart.waitFor();
  expect(await chart.locator('canvas').count()).toBe(1);
  expect(await chart.getAttribute('aria-label')).toMatch(/Vast\.ai on-demand.*Vast\.ai spot/);
  // The legend names every series and gives its values: a line lying on another is still told apart.
  const legend = page.locator('table.legend tbody tr');
  await legend.first().waitFor();
  const series = await legend.evaluateAll((trs) =>
    trs.map((tr) => (tr as unknown as { dataset: { series: string } }).dataset.series),
  );
  // Only Vast.ai sells spot: one spot series, beside an on-demand one for each provider.
  expect(series.filter((s) => s.endsWith(' spot'))).toEqual(['Vast.ai spot']);
  expect(series).toEqual(expect.arrayContaining(['RunPod on-demand', 'Vast.ai on-demand', 'Lambda on-demand']));
  // Each Vast.ai row gives the latest, lowest and highest price of the API's series of its kind.
  for (const [label, history] of [
    ['Vast.ai on-demand', onDemandHistory],
    ['Vast.ai spot', spotHistory],
  ] as const) {
    const prices = history.data.filter((d) => d.provider === 'vastai').map((d) => d.min_price_per_hour);
    const cells = page.locator(`tr[data-series="${label}"] td`);
    await cells
      .first()
      .filter({ hasText: perHour(prices.at(-1)!) })
      .waitFor();
    expect([label, await cells.allTextContents()]).toEqual([
      label,
      [prices.at(-1)!, Math.min(...prices), Math.max(...prices)].map(perHour),
    ]);
  }
  // The two Vast.ai lines are drawn apart: the legend's mark of each is the line as drawn, spot dashed.
  const dash = (label: string) =>
    page
      .locator(`tr[data-series="${label}"] .swatch`)
      .evaluate(
        (el) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { borderTopStyle: string } }).getComputedStyle(el)
            .borderTopStyle,
      );
  expect([await dash('Vast.ai on-demand'), await dash('Vast.ai spot')]).toEqual(['solid', 'dashed']);
  await screenshot(page, 'prices');
  await context.close();
});

test('spend: a Stripe Checkout top-up returns to the success page and the balance shows the credit', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  // Stripe's hosted payment page is the one part not on this machine: the browser lands on a blank page there.
  await page.route(
    (url) => !url.href.startsWith(base),
    (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Checkout</title>' }),
  );
  await signIn(page);
  await page.getByRole('link', { name: 'Spend', exact: true }).click();
  await page.getByTestId('balance').filter({ hasText: '$' }).waitFor();
  await page.getByLabel(/Amount/).fill('20');
  let credit: { status: number; body: { session_id: string; checkout_url: string } } | undefined;
  await page.route(`${base}/v1/billing/credit`, async (route) => {
    const response = await route.fetch();
    credit = {
      status: response.status(),
      body: (await response.json()) as { session_id: string; checkout_url: string },
    };
    await route.fulfill({ response });
  });
  await page.getByRole('button', { name: 'Pay with Stripe' }).click();
  await page.waitForURL((url) => !url.href.startsWith(base));
  expect(credit?.status).toBe(201);
  const { session_id: sessionId, checkout_url: checkoutUrl } = credit!.body;
  expect(page.url()).toBe(checkoutUrl);
  // The payer pays; Stripe notifies the API, then sends the browser back to the success URL it was given.
  const delivery = signedDelivery(
    checkoutCompletedEvent({ id: sessionId, accountId: account.accountId, amountTotalCents: 2000 }),
    stripe.settings.webhookSecret,
  );
  const hook = await fetch(`${base}/v1/billing/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': delivery.signature },
    body: delivery.body,
  });
  expect(hook.status).toBe(200);
  await page.goto(`${base}/console/checkout/success?session_id=${sessionId}`);
  await page.getByRole('heading', { name: 'Payment received' }).waitFor();
  await page.getByText('$20.00 was added to your balance.').waitFor();
  await page
    .getByTestId('balance')
    .filter({
      hasText: `$${(TEST_STARTING_CREDIT_DOLLARS + 20).toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
    })
    .waitFor();
  await page.getByRole('link', { name: 'Back to spend' }).click();
  await page.getByRole('cell', { name: `Credit top-up (Stripe Checkout ${sessionId})` }).waitFor();
  await screenshot(page, 'spend', { height: 720, fullPage: false });
  await page.goto(`${base}/console/checkout/cancel`);
  await page.getByRole('heading', { name: 'Payment cancelled' }).waitFor();
  await context.close();
});

test('no serious or critical accessibility violations on any page', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/console`);
  await page.getByLabel('API key').waitFor();
  const found: Record<string, string[]> = { signin: await seriousA11yViolations(page) };
  await signIn(page);
  await page.getByText('trainer-1').waitFor();
  found.fleet = await seriousA11yViolations(page);
  for (const name of ['Jobs', 'Prices', 'Spend', 'Alerts', 'Schedules', 'Webhooks', 'Events', 'Settings'] as const) {
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name, exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    found[name.toLowerCase()] = await seriousA11yViolations(page);
    await screenshot(page, name.toLowerCase());
  }
  await page.goto(`${base}/console/jobs/new`);
  await page.getByRole('heading', { name: 'Run a job' }).waitFor();
  await page.getByRole('button', { name: 'Find offers' }).click();
  await page.getByRole('button', { name: 'Choose' }).first().waitFor();
  found.runJob = await seriousA11yViolations(page);
  await page.goto(`${base}/console/instances`);
  await page.getByRole('heading', { name: 'Ended instances' }).waitFor();
  await page.waitForLoadState('networkidle');
  found.endedInstances = await seriousA11yViolations(page);
  await page.getByRole('link', { name: 'Launch', exact: true }).click();
  await page.getByRole('button', { name: 'Find offers' }).click();
  await page.getByRole('button', { name: 'Choose' }).first().waitFor();
  found.launch = await seriousA11yViolations(page);
  expect(found).toEqual({
    signin: [],
    fleet: [],
    jobs: [],
    runJob: [],
    endedInstances: [],
    prices: [],
    spend: [],
    alerts: [],
    schedules: [],
    webhooks: [],
    events: [],
    settings: [],
    launch: [],
  });
  await context.close();
});
