/**
 * Every recorded history replays on today's workflow code: the histories under test/fixtures/histories/
 * <workflowType>/<release>-<scenario>.pb (`History` protobuf bytes as fetched from the server, payloads sealed
 * with the tests' Temporal key), recorded by `npm run histories:record` from released code. A command that
 * the recorded run did not make, or one it made that today's code skips or reorders, fails the file's case with
 * the SDK's nondeterminism message (which names the diverging command). Every workflow type the worker serves
 * has at least one history, so a new family cannot ship without recordings. docs/operations.md, "Deploys".
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker, type ReplayResult } from '@temporalio/worker';
import * as workflows from '../../workflows';
import { TEST_DATA_CONVERTER, workflowBundle } from '../helpers/temporal';

jest.setTimeout(180_000);

const HISTORIES = path.join(__dirname, '../fixtures/histories');

/** `<workflowType>/<file>` of every saved history. */
const recorded = readdirSync(HISTORIES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(path.join(HISTORIES, d.name))
      .filter((f) => f.endsWith('.pb'))
      .map((f) => `${d.name}/${f}`),
  )
  .sort();

/** Every workflow type the worker registers: the async functions workflows/index.ts exports. */
const workflowTypes = Object.entries(workflows)
  .filter(([, value]) => typeof value === 'function' && value.constructor.name === 'AsyncFunction')
  .map(([name]) => name)
  .sort();

let results: Promise<Map<string, ReplayResult>>;

beforeAll(() => {
  // The replay worker's state changes are info lines: warnings and errors only.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // One replay worker for the whole corpus; each history is labelled with its file.
  results = (async () => {
    const histories = recorded.map((file) => ({
      workflowId: file,
      // Binary protobuf: this install's JSON history reader trips over two protobufjs copies.
      history: temporal.api.history.v1.History.decode(readFileSync(path.join(HISTORIES, file))),
    }));
    const byFile = new Map<string, ReplayResult>();
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: await workflowBundle(), dataConverter: TEST_DATA_CONVERTER },
      histories,
    )) {
      byFile.set(result.workflowId, result);
    }
    return byFile;
  })();
  // Awaited by each case: a failure to replay at all fails every case with its reason.
  results.catch(() => undefined);
});

it('finds histories to replay', () => {
  expect(recorded.length).toBeGreaterThan(0);
});

it.each(recorded)("%s replays on today's code", async (file) => {
  const result = (await results).get(file);
  if (!result) throw new Error(`${file}: the replay worker gave no result for this history`);
  if (result.error) {
    const workflowType = file.split('/')[0];
    throw new Error(
      `${file} (workflow ${workflowType}) does not replay on today's code: ${result.error.name}: ` +
        `${result.error.message}\n` +
        'A change that running workflows would see goes behind patched() (docs/operations.md, "Deploys").',
    );
  }
});

it('has at least one recorded history of every workflow type the worker serves', () => {
  const families = new Set(recorded.map((file) => file.split('/')[0]));
  const missing = workflowTypes.filter((type) => !families.has(type));
  if (missing.length > 0) {
    throw new Error(
      `no recorded history of ${missing.join(', ')}: add a scenario to scripts/record-histories.ts and run npm run ` +
        `histories:record`,
    );
  }
  expect(workflowTypes.length).toBeGreaterThan(0);
});
