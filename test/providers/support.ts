/**
 * Shared pieces of the provider tests: polling with a deadline, a held clock, error expectations, and a logger
 * that keeps every line so tests can assert no key was written.
 */
import { ProviderRequestError, type ProviderFailureKind } from '../../src/errors';
import type { Logger } from '../../src/logger';

/** Calls `read` until `done` holds or the deadline passes; returns the last value. Never a fixed sleep. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 5_000, intervalMs = 20 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
    last = await read();
  }
  return last;
}

/**
 * Runs `body` with Date.now held at the moment it starts: the simulators' phases (a boot, a terminate) do not
 * move meanwhile, so a look sees the phase of that moment however slow the machine is.
 */
export async function heldClock<T>(body: () => Promise<T>): Promise<T> {
  const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
  try {
    return await body();
  } finally {
    clock.mockRestore();
  }
}

/** Awaits a rejection and checks it is a ProviderRequestError of the given kind; returns it for more checks. */
export async function expectProviderError(
  promise: Promise<unknown>,
  kind: ProviderFailureKind,
  provider?: string,
): Promise<ProviderRequestError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  if (!(caught instanceof ProviderRequestError)) {
    throw new Error(
      `expected a ProviderRequestError of kind ${kind}, ` +
        `got ${caught === undefined ? 'a resolved promise' : String(caught)}`,
    );
  }
  expect({ kind: caught.kind, message: caught.message }).toEqual({ kind, message: expect.any(String) });
  if (provider) expect(caught.provider).toBe(provider);
  return caught;
}

export interface CapturingLogger extends Logger {
  lines: string[];
}

/** A logger that keeps every line (as JSON) in memory. */
export function capturingLogger(lines: string[] = []): CapturingLogger {
  const write = (level: string, base: Record<string, unknown>) => (msg: string, fields?: Record<string, unknown>) => {
    lines.push(JSON.stringify({ level, msg, ...base, ...fields }));
  };
  const make = (base: Record<string, unknown>): Logger => ({
    debug: write('debug', base),
    info: write('info', base),
    warn: write('warn', base),
    error: write('error', base),
    child: (fields) => make({ ...base, ...fields }),
  });
  return Object.assign(make({}), { lines });
}

export const SSH_KEY_A = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx1Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0 alice@laptop';
export const SSH_KEY_B = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHNlY29uZGtleWZvcnRlc3RzYmJiYmJiYmJiYmJi bob@desk';

/**
 * What one provider's test file handed out and saw: the keys it created, the error messages and log lines
 * the adapter produced, so the file can assert at the end that no key leaked into any of them.
 */
export function secretTracker(provider: string, createKey: () => string) {
  const logLines: string[] = [];
  const keysUsed: string[] = [];
  const errorMessages: string[] = [];
  return {
    logLines,
    keysUsed,
    errorMessages,
    key(): string {
      const k = createKey();
      keysUsed.push(k);
      return k;
    },
    /** Awaits a provider error of `kind` and keeps its message for the leak check. */
    async failing(promise: Promise<unknown>, kind: ProviderFailureKind): Promise<ProviderRequestError> {
      const err = await expectProviderError(promise, kind, provider);
      errorMessages.push(err.message);
      return err;
    },
  };
}
