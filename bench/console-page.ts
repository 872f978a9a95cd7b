/**
 * The console's fleet page with a large fleet, in a real Chromium (Debian's package), beside the same table as
 * static HTML: the console's load is navigation → sign-in state read → `GET /v1/compute` → the rows built in
 * the DOM; the static page is the browser parsing and laying out the very rows the console built (captured
 * from it, scripts removed, its stylesheet kept). Alternating loads, so drift hits both; each load is timed
 * from navigation to the frame where the last row exists.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/helpers/browser';

type Doc = {
  document: { querySelectorAll(selector: string): { length: number }; documentElement: { outerHTML: string } };
};

export interface ConsoleFleetFigures {
  rows: number;
  console: number[];
  staticHtml: number[];
}

/** Milliseconds from navigation to the frame that holds `rows` fleet rows. */
async function loadMs(page: Page, url: string, rows: number): Promise<number> {
  await page.goto(url);
  // Functions, not strings: the console's CSP forbids eval, and Playwright would evaluate a string with it.
  await page.waitForFunction(
    (n) => (globalThis as unknown as Doc).document.querySelectorAll('tr[data-instance-id]').length === n,
    rows,
    { polling: 'raf' },
  );
  return page.evaluate(() => performance.now());
}

export async function measureConsoleFleet(
  apiBase: string,
  apiKey: string,
  rows: number,
  rounds = 5,
): Promise<ConsoleFleetFigures> {
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${apiBase}/console`);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Fleet' }).waitFor();
    await loadMs(page, `${apiBase}/console/fleet`, rows);
    const html = (await page.evaluate(() => (globalThis as unknown as Doc).document.documentElement.outerHTML))
      .replace(/<script\b[\s\S]*?<\/script>/gi, '')
      .replace('<head>', `<head><base href="${apiBase}/console/">`);
    const server = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>${html}`),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const staticUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/fleet.html`;
    const figures: ConsoleFleetFigures = { rows, console: [], staticHtml: [] };
    try {
      for (let i = 0; i < rounds; i++) {
        figures.console.push(await loadMs(page, `${apiBase}/console/fleet`, rows));
        figures.staticHtml.push(await loadMs(page, staticUrl, rows));
      }
    } finally {
      server.close();
    }
    return figures;
  } finally {
    await browser.close();
  }
}

export function consoleFleetReport(f: ConsoleFleetFigures): string[] {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ms = (xs: number[]) =>
    `median ${median(xs).toFixed(0).padStart(5)} ms   best ${Math.min(...xs)
      .toFixed(0)
      .padStart(5)} ms`;
  return [
    `console fleet page in Chromium, ${f.rows} rows, ${f.console.length} alternating loads each ` +
      `(navigation → last row in the DOM):`,
    `  console (fetch + render)        ${ms(f.console)}`,
    `  the same rows as static HTML    ${ms(f.staticHtml)}`,
    `console / static HTML (medians): ${(median(f.console) / median(f.staticHtml)).toFixed(2)}×`,
  ];
}
