/**
 * JSON body reading with the documented limits: a body must be `application/json` (415 otherwise), at most
 * 64 KiB (413), and valid JSON (400 invalid_json). The raw bytes stay on `ctx.state.rawBody` for signature
 * checks (Stripe webhooks).
 */
import type { Context } from 'koa';
import { InvalidJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors';

export const BODY_LIMIT_BYTES = 64 * 1024;

function hasBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  if (length) return Number(length) > 0;
  return Boolean(ctx.get('transfer-encoding'));
}

async function readLimited(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw new PayloadTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new PayloadTooLargeError(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** True when the request carries a body we must read (GET and HEAD never do). */
export function expectsBody(ctx: Context): boolean {
  return ctx.method !== 'GET' && ctx.method !== 'HEAD' && hasBody(ctx);
}

/** Reads and parses the JSON body into `ctx.state.body` (raw bytes in `ctx.state.rawBody`). */
export async function readJsonBody(ctx: Context, limit = BODY_LIMIT_BYTES): Promise<void> {
  if (!ctx.is('application/json')) throw new UnsupportedMediaTypeError();
  const raw = await readLimited(ctx, limit);
  ctx.state.rawBody = raw;
  if (raw.length > 0) {
    try {
      ctx.state.body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new InvalidJsonError();
    }
  }
}
