/**
 * The SDKs stay true to the API: the OpenAPI document in the repo (sdk/openapi.json) is the one the API serves,
 * the TypeScript SDK's types (sdk/src/schema.ts) are what openapi-typescript generates from it, and the Python
 * client's generated package (sdk/python/src/gpuo/openapi) was generated from it (all fail after an API change
 * until `npm run sdk:generate`), and the TypeScript package builds and is importable from another project. The
 * child processes (the generator, tsc) of the tests run side by side. That the Python package is exactly what
 * its generator makes from sdk/openapi.json is checked by its own tests (`npm run test:python`), which have
 * Python.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, symlink, writeFile, copyFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { documentSha256, recordedDocumentSha256 } from '../../sdk/python/generate';
import { testAppDeps } from '../helpers/context';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { REPO_ROOT } from '../helpers/process';

jest.setTimeout(120_000);

let db: TestDatabase;
let served: object;
beforeAll(async () => {
  db = await createTestDatabase();
  served = (
    await request(createApp(testAppDeps(db.pool)).callback())
      .get('/v1/openapi.json')
      .expect(200)
  ).body;
});
afterAll(() => db.drop());

/** Runs a program to its end (failing on a non-zero exit) and gives its stdout; `input` is written to its stdin. */
function run(file: string, args: string[], opts: { cwd?: string; input?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { cwd: opts.cwd ?? REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`${path.basename(file)} ${args.join(' ')}: ${err.message}\n${stdout}${stderr}`))
          : resolve(stdout),
    );
    // A program that exits without reading its stdin (tsc, node -e) closes the pipe: its exit status tells.
    child.stdin!.on('error', () => undefined);
    if (opts.input === undefined) child.stdin!.end();
    else child.stdin!.end(opts.input);
  });
}

it.concurrent(
  'sdk/openapi.json is the served document (run `npm run sdk:generate` after changing the API)',
  async () => {
    const inRepo = JSON.parse(await readFile(path.join(REPO_ROOT, 'sdk', 'openapi.json'), 'utf8'));
    expect(inRepo).toEqual(served);
  },
);

it.concurrent('sdk/src/schema.ts is what openapi-typescript generates from the served document', async () => {
  const inRepo = await readFile(path.join(REPO_ROOT, 'sdk', 'src', 'schema.ts'), 'utf8');
  const generated = await run(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'sdk', 'generate.ts')], {
    input: JSON.stringify(served),
  });
  expect(inRepo).toBe(generated);
});

it.concurrent('sdk/python/src/gpuo/openapi was generated from the served document', async () => {
  // The generator records the SHA-256 of the document text (as sdk/openapi.json holds it) in _source.py.
  expect(await recordedDocumentSha256()).toBe(documentSha256(served));
});

it.concurrent('builds, and another project imports it and type-checks against it', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-sdk-consumer-'));
  const pkg = path.join(dir, 'node_modules', '@gpuo', 'sdk');
  await mkdir(pkg, { recursive: true });
  const tsc = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc');
  await run(tsc, ['-p', path.join(REPO_ROOT, 'sdk', 'tsconfig.json'), '--outDir', path.join(pkg, 'dist')]);
  await copyFile(path.join(REPO_ROOT, 'sdk', 'package.json'), path.join(pkg, 'package.json'));
  // The consumer's own install of the SDK's one dependency.
  await symlink(path.join(REPO_ROOT, 'node_modules', 'openapi-fetch'), path.join(dir, 'node_modules', 'openapi-fetch'));
  await writeFile(
    path.join(dir, 'main.ts'),
    [
      "import { createGpuoClient, InsufficientBalanceError, type LaunchBody } from '@gpuo/sdk';",
      "const body: LaunchBody = { provider: 'runpod', gpu_type: 'rtx-a6000', gpu_count: 1, spot: false };",
      "const client = createGpuoClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'gpuo_sk_x' });",
      'export const checks = [',
      '  typeof client.launch,',
      '  new InsufficientBalanceError(402, "insufficient_balance", "m") instanceof Error,',
      '  body.provider,',
      '];',
      // The types are real, not `any`: a provider outside the three is an error (an unused expect-error would fail).
      '// @ts-expect-error not one of the three providers',
      "export const bad: LaunchBody = { provider: 'aws', gpu_type: 'x' };",
      '',
    ].join('\n'),
  );
  await run(
    tsc,
    [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--skipLibCheck',
      '--lib',
      'ES2022,DOM',
      'main.ts',
    ],
    { cwd: dir },
  );
  const out = await run(
    process.execPath,
    ['-e', "const s = require('@gpuo/sdk'); console.log(typeof s.createGpuoClient, typeof s.InsufficientBalanceError)"],
    { cwd: dir },
  );
  expect(out.trim()).toBe('function function');
});
