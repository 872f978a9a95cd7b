/**
 * The API reference at /docs in a real Chromium: it renders under its Content-Security-Policy with no console
 * error and no request leaving the origin, its search finds an operation by path, each operation has request
 * samples in curl, TypeScript and Python whose bodies its schema accepts, and what the page weighs.
 * The page needs no database or engine, so the app runs on stand-ins for them (as `npm run sdk:generate` does).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Browser, Page } from 'playwright-core';
import { createApp } from '../../src/http/app';
import { PricingCache } from '../../src/db/pricing-cache';
import type { Pool } from '../../src/db/pool';
import { createPricingQueries } from '../../src/db/queries/pricing';
import { KeyVault } from '../../src/domain/key-vault';
import { silentLogger } from '../../src/logger';
import { createProviderAdapters } from '../../src/providers';
import { launchChromium } from '../helpers/browser';

/** What the whole page may weigh on the wire (HTML, RapiDoc, the document), compressed. */
const TRANSFER_BUDGET_BYTES = 300 * 1024;

let server: http.Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  const pool = {} as Pool;
  const app = createApp({
    pool,
    logger: silentLogger,
    temporal: { client: null as unknown as Client, taskQueue: 'docs' },
    adapters: createProviderAdapters({ timeoutMs: 1000, logger: silentLogger }),
    vault: new KeyVault('docs', randomBytes(32)),
    pricing: new PricingCache(createPricingQueries(pool), silentLogger),
  });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

interface Opened {
  page: Page;
  /** Console errors, page errors and requests to anywhere but this origin, so far. */
  problems: () => string[];
  /** Bytes on the wire for every response so far (headers and bodies as sent). */
  transferred: () => Promise<number>;
}

async function openReference(hash = ''): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems: string[] = [];
  const responses: Promise<number>[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfinished', (r) => responses.push(r.sizes().then((s) => s.responseHeadersSize + s.responseBodySize)));
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith(base)) return route.continue();
    problems.push(`request outside the origin: ${route.request().url()}`);
    return route.abort();
  });
  await page.goto(`${base}/docs${hash}`);
  await page.getByText('GPU Orchestrator API', { exact: false }).first().waitFor();
  return {
    page,
    problems: () => problems,
    transferred: async () => (await Promise.all(responses)).reduce((a, b) => a + b, 0),
  };
}

test('/docs is served under a policy with no inline script; the page is a thin shell over one bundle', async () => {
  const res = await fetch(`${base}/docs`);
  expect(res.status).toBe(200);
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toMatch(/script-src[^;]*unsafe/);
  expect(csp).not.toMatch(/style-src [^;]*unsafe/);
  expect(csp).toContain("connect-src 'self'");
  const html = await res.text();
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/); // every script is a file from this origin
  expect(html.match(/<script[^>]*src="([^"]+)"/)![1]).toMatch(/^\/docs\/assets\/rapidoc-[0-9a-f]{12}\.min\.js$/);
});

test('renders the reference with no console error, fetches nothing from elsewhere, states its weight', async () => {
  const { page, problems, transferred } = await openReference();
  await page.getByText('Launch a GPU instance').first().waitFor();
  // Every operation of the document is in the navigation.
  const served = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: Record<string, object> };
  // RapiDoc names an operation `<method>-<path>`, with `-` for path braces.
  const operations = Object.entries(served.paths).flatMap(([route, ops]) =>
    Object.keys(ops).map((method) => `${method}-${route.replace(/[{}]/g, '-')}`),
  );
  const listed = await page
    .locator('.nav-bar-path[data-content-id]')
    .evaluateAll((links) => links.map((l) => l.getAttribute('data-content-id')));
  expect(listed.sort()).toEqual(operations.sort());
  expect(problems()).toEqual([]);
  const bytes = await transferred();
  process.stderr.write(`/docs transferred ${bytes} bytes\n`);
  expect(bytes).toBeLessThanOrEqual(TRANSFER_BUDGET_BYTES);
  await page.close();
});

test('search finds compute/launch', async () => {
  const { page, problems } = await openReference();
  const listKeys = page.getByText('List SSH keys, newest first').first();
  await listKeys.waitFor();
  await page.getByPlaceholder('Filter').fill('compute/launch');
  await page.getByPlaceholder('Filter').press('Enter');
  await listKeys.waitFor({ state: 'hidden' });
  const found = page.locator('[id="link-post-/v1/compute/launch"]');
  await found.waitFor();
  await expect(found.innerText()).resolves.toContain('Launch a GPU instance');
  await found.click();
  await page.getByText('/v1/compute/launch', { exact: true }).first().waitFor();
  expect(problems()).toEqual([]);
  await page.close();
});

test('the launch operation has request samples in curl, TypeScript and Python', async () => {
  const { page, problems } = await openReference('#post-/v1/compute/launch');
  const samples: Record<string, string> = {};
  for (const label of ['curl', 'TypeScript', 'Python']) {
    await page.getByRole('button', { name: label, exact: true }).first().click();
    const shown = page.locator('.tab-content:visible pre, .tab-content:visible code').first();
    await shown.waitFor();
    samples[label] = (await shown.innerText()).trim();
  }
  expect(samples.curl).toContain('curl -X POST "$GPUO_API_URL/v1/compute/launch"');
  expect(samples.curl).toContain('Authorization: Bearer $GPUO_API_KEY');
  expect(samples.TypeScript).toContain(
    `gpuo.raw.POST('/v1/compute/launch', { body: {"provider":"runpod","gpu_type":"h100-80gb-sxm"} })`,
  );
  expect(samples.Python).toContain(
    'gpuo.post("/v1/compute/launch", json={"provider": "runpod", "gpu_type": "h100-80gb-sxm"})',
  );
  expect(problems()).toEqual([]);
  await page.close();
});

test('each operation has the three samples, their bodies pass its schema, the document is the served one', async () => {
  const served = (await (await fetch(`${base}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
    components: unknown;
  };
  const docs = (await (await fetch(`${base}/docs/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          'x-codeSamples'?: { label: string; source: string }[];
          requestBody?: { content: Record<string, { schema: object }> };
        }
      >
    >;
  };
  // Nothing more than the public document (no operational routes), and the keys only ever from the environment.
  expect(Object.keys(docs.paths)).toEqual(Object.keys(served.paths));
  expect(JSON.stringify(docs)).not.toMatch(/gpuo_sk_[A-Za-z0-9]/);
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: served.components });
  const refusals: string[] = [];
  for (const [route, ops] of Object.entries(docs.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      expect([method, route, op['x-codeSamples']?.map((s) => s.label)]).toEqual([
        method,
        route,
        ['curl', 'TypeScript', 'Python'],
      ]);
      const schema = op.requestBody?.content['application/json']?.schema;
      if (!schema) continue;
      const curl = op['x-codeSamples']![0]!.source;
      const body = /-d '(.*)'$/s.exec(curl)?.[1];
      if (body === undefined) {
        refusals.push(`${method.toUpperCase()} ${route}: no body in the sample`);
        continue;
      }
      const sent: unknown = JSON.parse(body.replace(/'\\''/g, "'"));
      const validate = ajv.compile(
        JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')),
      );
      if (!validate(sent)) refusals.push(`${method.toUpperCase()} ${route}: ${ajv.errorsText(validate.errors)}`);
    }
  }
  expect(refusals).toEqual([]);
});
