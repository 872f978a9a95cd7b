/**
 * The merging of "look again" signals (`coalescing`, used for the account's spend workflow): a burst of one
 * account's calls costs two sends, every call is covered by a send that started after it, accounts do not share,
 * and a failed send fails exactly the calls it covered.
 */
import { coalescing } from '../../src/workflow-clients/coalesce';

/** A send the test finishes by hand, recording when each began (as the sequence number of the calls so far). */
function manualSend() {
  const sends: { key: string; arg: number; callsBefore: number; finish: (err?: Error) => void }[] = [];
  let calls = 0;
  const send = (key: string, arg: number) =>
    new Promise<void>((resolve, reject) => {
      sends.push({ key, arg, callsBefore: calls, finish: (err) => (err ? reject(err) : resolve()) });
    });
  return { sends, send, called: () => calls++ };
}

const settle = () => new Promise((r) => setImmediate(r));

test('calls made while a send is under way share one send that starts after it finishes', async () => {
  const m = manualSend();
  const notify = coalescing(m.send);
  const done: number[] = [];
  const call = (i: number) => {
    m.called();
    void notify('acct_a', i).then(() => done.push(i));
  };
  call(0);
  for (let i = 1; i <= 5; i++) call(i);
  await settle();
  expect(m.sends).toHaveLength(1); // the first is under way; the five wait
  m.sends[0]!.finish();
  await settle();
  expect(done).toEqual([0]);
  expect(m.sends).toHaveLength(2); // one send for the five, begun after all of them were made
  expect(m.sends[1]!.callsBefore).toBe(6);
  call(6); // arrives while the shared send is under way: it needs a send of its own, after it
  m.sends[1]!.finish();
  await settle();
  expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5]);
  expect(m.sends).toHaveLength(3);
  m.sends[2]!.finish();
  await settle();
  expect(done).toHaveLength(7);
  expect(m.sends.map((s) => s.arg)).toEqual([0, 1, 6]);
});

test('each key has its own sends', async () => {
  const m = manualSend();
  const notify = coalescing(m.send);
  const all = [notify('acct_a', 1), notify('acct_b', 2), notify('acct_a', 3), notify('acct_b', 4)];
  await settle();
  expect(m.sends.map((s) => s.key)).toEqual(['acct_a', 'acct_b']);
  m.sends[0]!.finish();
  m.sends[1]!.finish();
  await settle();
  expect(m.sends.map((s) => `${s.key}:${s.arg}`)).toEqual(['acct_a:1', 'acct_b:2', 'acct_a:3', 'acct_b:4']);
  m.sends[2]!.finish();
  m.sends[3]!.finish();
  await Promise.all(all);
});

test('a failed send fails the calls it covered and no others; the next call sends again', async () => {
  const m = manualSend();
  const notify = coalescing(m.send);
  const first = notify('acct_a', 1);
  const shared = [notify('acct_a', 2), notify('acct_a', 3)];
  m.sends[0]!.finish(new Error('engine unreachable'));
  await expect(first).rejects.toThrow('engine unreachable');
  await settle();
  m.sends[1]!.finish(new Error('still unreachable'));
  for (const p of shared) await expect(p).rejects.toThrow('still unreachable');
  const again = notify('acct_a', 4);
  await settle();
  expect(m.sends).toHaveLength(3);
  m.sends[2]!.finish();
  await expect(again).resolves.toBeUndefined();
});
