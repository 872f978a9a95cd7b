/**
 * Failures of our own engine (the Temporal server or the connection to it) mapped to the documented
 * 503 `service_unavailable` with `Retry-After`, and a bound on how long an API call waits for the engine.
 * Every client-side workflow module goes through here, so no route answers 500 because Temporal is away.
 */
import { isGrpcServiceError, ServiceError, type Client } from '@temporalio/client';
import { ServiceUnavailableError } from '../errors';

/** gRPC codes that mean "the engine cannot be reached or did not answer in time": worth a retry later. */
const UNREACHABLE_CODES = new Set([
  1, // CANCELLED (our own deadline)
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED
  14, // UNAVAILABLE
]);

/** True when `err` says the engine is unreachable or timed out (as opposed to a workflow's own answer). */
export function isEngineUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(e) && UNREACHABLE_CODES.has(e.code)) return true;
    if (e instanceof ServiceError && /deadline|unavailable|connect|timed out/i.test(e.message)) return true;
    if (e instanceof Error && /failed to connect|connection refused|ECONNREFUSED|transport error/i.test(e.message))
      return true;
  }
  return false;
}

export const ENGINE_UNAVAILABLE_MESSAGE =
  'The workflow engine cannot be reached right now; retrying this request is safe.';

/**
 * Runs one engine call with a deadline (default 10 s): the SDK otherwise retries an unreachable server for
 * much longer than an HTTP client waits. An unreachable engine becomes {@link ServiceUnavailableError}.
 */
export async function withEngine<T>(client: Client, fn: () => Promise<T>, deadlineMs = 10_000): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + deadlineMs, fn);
  } catch (err) {
    if (isEngineUnavailable(err)) throw new ServiceUnavailableError(ENGINE_UNAVAILABLE_MESSAGE);
    throw err;
  }
}
