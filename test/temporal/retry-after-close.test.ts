/**
 * A call that fails while the connection is being closed: the retry waiting in its timer must not create a
 * call on the closed channel (the SDK's own retry does, and grpc-js throws "Channel has been shut down" inside
 * the timer, where nothing can catch it: a whole-suite run failed on it twice). Instead the caller gets the
 * last failure. Before the close, failures are retried as the SDK retries them.
 */
import {
  Metadata,
  status,
  type Interceptor,
  type InterceptorOptions,
  type InterceptingListener,
  type StatusObject,
} from '@grpc/grpc-js';

type NextCall = Parameters<Interceptor>[1];
type CallOnChannel = ReturnType<NextCall>;
import { closeAwareRetryInterceptor } from '../../src/workflow-clients/connection';

/** A channel whose every call fails UNAVAILABLE (a retryable code), counting the calls made on it. */
function failingChannel() {
  let calls = 0;
  const nextCall = (): CallOnChannel => {
    calls++;
    return {
      start(_metadata: Metadata, listener: InterceptingListener) {
        setImmediate(() =>
          listener.onReceiveStatus({ code: status.UNAVAILABLE, details: 'engine away', metadata: new Metadata() }),
        );
      },
      sendMessage() {},
      sendMessageWithContext() {},
      startRead() {},
      halfClose() {},
      cancelWithStatus() {},
      getPeer: () => 'test',
      getAuthContext: () => null,
    } as unknown as CallOnChannel;
  };
  return { nextCall, calls: () => calls };
}

/** Starts one unary call through the interceptor; resolves with its final status. */
function callThrough(isClosed: () => boolean, channel: ReturnType<typeof failingChannel>): Promise<StatusObject> {
  const call = closeAwareRetryInterceptor(isClosed)({} as InterceptorOptions, channel.nextCall as NextCall);
  return new Promise((resolve) => {
    call.start(new Metadata(), { onReceiveMetadata() {}, onReceiveMessage() {}, onReceiveStatus: resolve });
    call.sendMessage(Buffer.from('request'));
    call.halfClose();
  });
}

test('before a close, a retryable failure is tried again', async () => {
  const channel = failingChannel();
  let closed = false;
  const done = callThrough(() => closed, channel);
  const deadline = Date.now() + 10_000;
  while (channel.calls() < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(channel.calls()).toBeGreaterThanOrEqual(3);
  closed = true;
  expect((await done).code).toBe(status.UNAVAILABLE);
});

test('a retry whose timer fires after the close answers with the last failure and makes no call', async () => {
  const channel = failingChannel();
  let closed = false;
  const done = callThrough(() => closed, channel);
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r)); // the first attempt failed; its retry waits in a timer (≥ 80 ms)
  expect(channel.calls()).toBe(1);
  closed = true;
  const final = await done;
  expect(final).toMatchObject({ code: status.UNAVAILABLE, details: 'engine away' });
  expect(channel.calls()).toBe(1);
});
