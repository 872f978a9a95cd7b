/**
 * The time-skipping server's class-data archive (test/helpers/time-skipping.ts): recorded at a server's exit when
 * there is none, and a damaged one (the JVM aborts on a truncated archive) never keeps the server from starting:
 * it is removed, the server starts without it and records a whole one again. On an archive of this file's own.
 */
import { mkdtemp, readdir, rm, stat, truncate } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureTimeSkippingServer, startTestServer } from '../helpers/time-skipping';

jest.setTimeout(180_000);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-cds-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** True when something accepts a connection at `host:port`. */
function answers(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect(Number(port), host!);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const size = (p: string) =>
  stat(p).then(
    (s) => s.size,
    () => 0,
  );

/** The JVM fatal error reports in `folder`. */
const reports = async (folder: string) => (await readdir(folder)).filter((n) => /^hs_err_pid\d+\.log$/.test(n));

test('a server records the archive at its exit; after a truncation the next starts and records it again', async () => {
  const executable = await ensureTimeSkippingServer();
  const archive = path.join(dir, 'classes.jsa');
  const reportsBefore = await reports(process.cwd());

  const first = await startTestServer(executable, archive);
  expect(await answers(first.address)).toBe(true);
  await first.stop();
  const recorded = await size(archive);
  expect(recorded).toBeGreaterThan(1024 * 1024);

  await truncate(archive, 64 * 1024);
  const second = await startTestServer(executable, archive);
  expect(await answers(second.address)).toBe(true);
  await second.stop();
  expect(await size(archive)).toBeGreaterThan(1024 * 1024);
  // The aborted JVM's report is beside the archive, not in the folder the tests run in.
  expect((await reports(dir)).length).toBeGreaterThanOrEqual(1);
  expect(await reports(process.cwd())).toEqual(reportsBefore);
});
