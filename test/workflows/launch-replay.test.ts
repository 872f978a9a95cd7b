/**
 * Runs started before a change of the launch or observer workflow replay on today's code: histories recorded
 * on main `a14dd69` (before `launch-one-step` and `observer-wake-gap`) by a launch through the API on the real
 * stack (runpod simulator, one launch alone and three at once, each booted and metered), payloads sealed with
 * the tests' Temporal key; `History` protobuf bytes. A command the old run did not record (or one missing) fails the replay.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { TEST_DATA_CONVERTER, workflowBundle } from '../helpers/temporal';

jest.setTimeout(120_000);

const HISTORIES = path.join(__dirname, '../fixtures/histories');

it.each([
  ['launchInstance: intent, create and record as two local activities, the observer signalled, booted, metered', 'launch-instance-before-one-step.pb'],
  ['observeProviderInstances: rounds woken by each new instance at once', 'observer-before-wake-gap.pb'],
  // Recorded on `a66a158` the same way (one launch, booted, charged twice): the one-step create decided by the
  // `launch-one-step` patch marker, before the API's launches said so in their input (`createInOneStep`).
  ['launchInstance: the one-step create under its patch marker, booted, charged twice', 'launch-instance-one-step-patch.pb'],
])('%s', async (_what, file) => {
  // Binary protobuf (as fetched from the server): this install's JSON history reader trips over two protobufjs copies.
  const history = temporal.api.history.v1.History.decode(readFileSync(path.join(HISTORIES, file)));
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle(), dataConverter: TEST_DATA_CONVERTER }, history)).resolves.toBeUndefined();
});
