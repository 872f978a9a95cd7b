/**
 * JSON body reading with the documented limits: a body must be `application/json` (415 otherwise), at most
 * 64 KiB (413), fully received within the body timeout (408), nested at most {@link MAX_JSON_DEPTH} deep and
 * valid JSON (400 invalid_json; too deep is 400 validation_error). The raw bytes stay on `ctx.state.rawBody`
 * for signature checks (Stripe webhooks).
 *
 * Bodies are read by the route, after authentication (see route.ts): an unauthenticated request is answered
 * without reading its body, and the connection is closed (edge.ts) so a slow sender cannot hold it.
 */
import type { Context } from 'koa';
import {
  InvalidJsonError,
  PayloadTooLargeError,
  RequestTimeoutError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../errors';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './text';

export const BODY_LIMIT_BYTES = 64 * 1024;
/** Default time a client has to send its whole body. */
export const BODY_TIMEOUT_MS = 10_000;

/** The client went away before its body arrived: there is nobody left to answer, and nothing went wrong here. */
export class ClientAbortedError extends Error {
  constructor() {
    super('the client closed the connection before the request body arrived');
    this.name = 'ClientAbortedError';
  }
}

function hasBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  if (length) return Number(length) > 0;
  return Boolean(ctx.get('transfer-encoding'));
}

function readLimited(ctx: Context, limit: number, timeoutMs: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) return Promise.reject(new PayloadTooLargeError(limit));
  const req = ctx.req;
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  // Gone while we were authenticating: 'close' has fired already and will not fire again.
  if (req.destroyed || req.socket?.destroyed) return Promise.reject(new ClientAbortedError());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (err: Error | null, body?: Buffer) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
      if (err) {
        // Stop reading: the response says why, and edge.ts closes the connection after it.
        req.pause();
        reject(err);
      } else resolve(body!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(new PayloadTooLargeError(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(null, Buffer.concat(chunks));
    const onAbort = () => finish(new ClientAbortedError());
    const onClose = () => {
      if (!req.complete) finish(new ClientAbortedError());
    };
    const timer = setTimeout(() => finish(new RequestTimeoutError(timeoutMs / 1000)), timeoutMs);
    timer.unref();
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
  });
}

/** True when the request carries a body we must read (GET and HEAD never do). */
export function expectsBody(ctx: Context): boolean {
  return ctx.method !== 'GET' && ctx.method !== 'HEAD' && hasBody(ctx);
}

export interface BodyLimits {
  limitBytes?: number;
  timeoutMs?: number;
}

/** Reads and parses the JSON body into `ctx.state.body` (raw bytes in `ctx.state.rawBody`). */
export async function readJsonBody(ctx: Context, limits: BodyLimits = {}): Promise<void> {
  if (!ctx.is('application/json')) throw new UnsupportedMediaTypeError();
  const raw = await readLimited(ctx, limits.limitBytes ?? BODY_LIMIT_BYTES, limits.timeoutMs ?? BODY_TIMEOUT_MS);
  ctx.state.rawBody = raw;
  if (raw.length > 0) {
    const text = raw.toString('utf8');
    // Checked before parsing: neither JSON.parse, nor zod, nor the error-message builder ever walks a
    // pathologically deep value.
    if (exceedsJsonDepth(text)) {
      const message = `nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep`;
      throw new ValidationError(`Invalid body: ${message}.`, [{ path: 'body', message }]);
    }
    try {
      ctx.state.body = JSON.parse(text);
    } catch {
      throw new InvalidJsonError();
    }
  }
}
