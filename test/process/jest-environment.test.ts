/**
 * The jest environment every test file runs in (test/jest/environment.js) disables, when a file ends, the
 * AsyncLocalStorage instances enabled while it ran, and stops the promise hooks it created, and only those: Node
 * walks every enabled instance and runs every hook on each new promise, and jest makes new ones for each file. Run
 * in a plain Node process of its own: inside jest the environment's process-wide hook is already installed by the
 * file's own environment.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ENVIRONMENT = path.resolve(__dirname, '../jest/environment.js');

/** Two files in one process, as a jest worker runs them; each line of output is one observation. */
const SCRIPT = `
const Env = require(${JSON.stringify(ENVIRONMENT)});
const { AsyncLocalStorage } = require('node:async_hooks');
const config = { projectConfig: { testEnvironmentOptions: {}, globals: {} }, globalConfig: {} };
const file = (testPath) => new Env(config, { console, docblockPragmas: {}, testPath });
(async () => {
  const outer = new AsyncLocalStorage();
  outer.enterWith('outer');
  const first = file('first.test.ts');
  await first.setup();
  const a = new AsyncLocalStorage();
  a.enterWith('a');
  const b = new AsyncLocalStorage();
  const inRun = b.run('b', () => b.getStore());
  console.log(JSON.stringify({ during: [a.getStore(), inRun] }));
  await first.teardown();
  console.log(JSON.stringify({ afterFirst: [a.getStore() ?? null, outer.getStore() ?? null] }));
  const second = file('second.test.ts');
  await second.setup();
  const c = new AsyncLocalStorage();
  c.enterWith('c');
  await new Promise((resolve) => setTimeout(resolve, 5));
  console.log(JSON.stringify({ secondDuring: c.getStore() ?? null }));
  await second.teardown();
  console.log(JSON.stringify({ afterSecond: [c.getStore() ?? null, outer.getStore() ?? null] }));

  // Promise hooks: one made outside any file, one made by a file (as a Temporal worker in debugMode does).
  const { promiseHooks } = require('node:v8');
  const seen = { outside: 0, file: 0 };
  promiseHooks.createHook({ init: () => seen.outside++ });
  const third = file('third.test.ts');
  await third.setup();
  promiseHooks.createHook({ init: () => seen.file++ });
  await Promise.resolve();
  const during = { ...seen };
  await third.teardown();
  const before = { ...seen };
  await Promise.resolve().then(() => undefined);
  console.log(JSON.stringify({
    hooksDuring: during.outside > 0 && during.file > 0,
    hooksAfterThird: { outside: seen.outside > before.outside, file: seen.file - before.file },
  }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

it("disables a file's AsyncLocalStorage instances and stops its promise hooks when it ends, not others", () => {
  const run = spawnSync(process.execPath, ['-e', SCRIPT], { encoding: 'utf8' });
  expect([run.status, run.stderr]).toEqual([0, '']);
  expect(
    run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  ).toEqual([
    { during: ['a', 'b'] },
    { afterFirst: [null, 'outer'] },
    { secondDuring: 'c' },
    { afterSecond: [null, 'outer'] },
    { hooksDuring: true, hooksAfterThird: { outside: true, file: 0 } },
  ]);
});
