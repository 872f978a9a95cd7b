/**
 * JSON body parsing with the documented limits: a body must be `application/json` (415 otherwise), at most
 * 64 KiB (413), and valid JSON (400 invalid_json). The raw bytes stay on `ctx.state.rawBody` for signature
 * checks (Stripe webhooks).
 */
import type { Context, Next } from 'koa';
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

export function jsonBody(limit = BODY_LIMIT_BYTES) {
  return async (ctx: Context, next: Next) => {
    ctx.state.body = undefined;
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) && hasBody(ctx)) {
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
    await next();
  };
}
