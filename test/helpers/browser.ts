/**
 * A real Chromium from Debian's `chromium` source package, driven by playwright-core: its headless shell
 * (`chromium-headless-shell`, the same engine without the browser's window layers: less than half the CPU for the
 * same pages) when installed, else the full `chromium`; .ci/run installs the shell when neither is there.
 * Nothing downloads a browser of its own. Flags as this machine needs them: no sandbox as root, and no
 * background networking (the network here is closed).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ??
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => existsSync(p)) ??
  '/usr/bin/chromium-headless-shell';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install -y chromium-headless-shell; .ci/run ` +
        `does) or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** axe-core's serious and critical violations on the page as it is now (rule id: the first offending node). */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(source);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, target: JSON.stringify((v.nodes[0] || {}).target ` +
      `|| []) })))`,
  )) as {
    id: string;
    impact: string | null;
    target: string;
  }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}) at ${v.target}`);
}

/**
 * Saves the page as `console-<name>.png` in CONSOLE_SCREENSHOT_DIR (`npm run console:screenshots` sets it to
 * docs/images); without it, only sets the viewport, so the test's pages render the same either way. Capturing
 * is left out of a plain run: nothing reads the files, and the PNG encoding of every page costs Chromium seconds
 * of CPU per file.
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { height?: number; fullPage?: boolean } = {},
): Promise<void> {
  await page.setViewportSize({ width: 1280, height: options.height ?? 900 });
  const dir = process.env.CONSOLE_SCREENSHOT_DIR;
  if (dir) await page.screenshot({ path: path.join(dir, `console-${name}.png`), fullPage: options.fullPage ?? true });
}
