/**
 * The generated part of the Python client (sdk/python/src/gpuo/openapi): `openapi-python-client`, run from the
 * virtualenv sdk/python/.venv (made and filled here when missing), over the API's OpenAPI document.
 *
 * The served document repeats one error schema inline under every error status of every operation (389 times);
 * the generator would make three model classes of each (1,381 models, 6.8 MB). Before generating, the schema is
 * moved to `components.schemas.ErrorBody` and referenced from there, which means the same to any reader of the
 * document: the generated client then has one `ErrorBody` model (217 models, 1.6 MB).
 *
 * Beside the generated code, `_source.py` records the SHA-256 of the document it came from (as sdk/openapi.json
 * holds it), so test/sdk/drift.test.ts can tell a stale client without Python.
 *
 * As a program (`node --import tsx sdk/python/generate.ts [document.json [output-folder]]`) it generates from
 * sdk/openapi.json into the package, or from and into the given paths (the pytest check of the committed code).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const PYTHON_SDK = __dirname;
const VENV = path.join(PYTHON_SDK, '.venv');
const VENV_BIN = path.join(VENV, 'bin');
export const GENERATED_PACKAGE = path.join(PYTHON_SDK, 'src', 'gpuo', 'openapi');

/** The text sdk/openapi.json holds for a document: what the recorded hash is taken over. */
export function documentText(document: object): string {
  return JSON.stringify(document, null, 2) + '\n';
}

export function documentSha256(document: object): string {
  return createHash('sha256').update(documentText(document)).digest('hex');
}

/** The SHA-256 the committed generated code records, or undefined when there is none. */
export async function recordedDocumentSha256(): Promise<string | undefined> {
  const source = await readFile(path.join(GENERATED_PACKAGE, '_source.py'), 'utf8').catch(() => '');
  return /^OPENAPI_SHA256 = "([0-9a-f]{64})"$/m.exec(source)?.[1];
}

/** Runs a program to its end (failing on a non-zero exit); gives what it printed, stdout then stderr. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: PYTHON_SDK, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`${path.basename(file)} ${args.join(' ')}: ${err.message}\n${stdout}${stderr}`))
        : resolve(stdout + stderr),
    );
  });
}

/**
 * sdk/python/.venv with the package and its test extra installed (the extra pins openapi-python-client).
 * `python3` (or $PYTHON) makes the venv; pip fetches from the package index the first time.
 */
export async function ensurePythonVenv(): Promise<void> {
  if (!existsSync(path.join(VENV_BIN, 'python'))) {
    await run(process.env.PYTHON ?? 'python3', ['-m', 'venv', VENV]).catch((err: Error) => {
      throw new Error(`could not make the Python virtualenv (python3 3.11 or later is needed): ${err.message}`);
    });
  }
  await run(path.join(VENV_BIN, 'pip'), ['install', '--quiet', '--editable', '.[test]']);
}

/** The document as the generator is given it: the repeated error schema as one component (see the top). */
export function withSharedErrorSchema(document: object): object {
  const doc = structuredClone(document) as {
    paths: Record<
      string,
      Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>
    >;
    components?: { schemas?: Record<string, unknown> };
  };
  const errorContents: { schema?: unknown }[] = [];
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = response.content?.['application/json'];
        if (!status.startsWith('2') && json?.schema) errorContents.push(json);
      }
    }
  }
  const counts = new Map<string, number>();
  for (const c of errorContents) counts.set(JSON.stringify(c.schema), (counts.get(JSON.stringify(c.schema)) ?? 0) + 1);
  const [errorSchema] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (errorSchema === undefined) return doc;
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ErrorBody: JSON.parse(errorSchema) } };
  for (const c of errorContents)
    if (JSON.stringify(c.schema) === errorSchema) c.schema = { $ref: '#/components/schemas/ErrorBody' };
  return doc;
}

/** Writes the generated package for `document` to `outputDir` (replacing it). Needs {@link ensurePythonVenv}. */
export async function generatePythonClient(document: object, outputDir = GENERATED_PACKAGE): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'gpuo-python-sdk-'));
  try {
    const input = path.join(tmp, 'openapi.json');
    await writeFile(input, JSON.stringify(withSharedErrorSchema(document)));
    // The generator formats its output with ruff (a dependency of it) found on PATH; no cache left in the package.
    const env = {
      ...process.env,
      PATH: `${VENV_BIN}${path.delimiter}${process.env.PATH ?? ''}`,
      RUFF_NO_CACHE: 'true',
    };
    const out = await run(
      path.join(VENV_BIN, 'openapi-python-client'),
      [
        'generate',
        '--path',
        input,
        '--config',
        'openapi-python-client.yaml',
        '--meta',
        'none',
        '--output-path',
        outputDir,
        '--overwrite',
      ],
      env,
    );
    // It reports what it could not generate and still exits 0: a client with pieces missing is a failure here.
    if (/warning/i.test(out)) throw new Error(`openapi-python-client reported problems:\n${out}`);
    await writeFile(
      path.join(outputDir, '_source.py'),
      [
        '"""The OpenAPI document this package was generated from (`npm run sdk:generate`)."""',
        '',
        `OPENAPI_SHA256 = "${documentSha256(document)}"`,
        '',
      ].join('\n'),
    );
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const [documentPath = path.join(PYTHON_SDK, '..', 'openapi.json'), outputDir = GENERATED_PACKAGE] =
    process.argv.slice(2);
  readFile(documentPath, 'utf8')
    .then((text) => generatePythonClient(JSON.parse(text) as object, path.resolve(outputDir)))
    .catch((err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exit(1);
    });
}
