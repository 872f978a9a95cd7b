import type { Context, Next } from 'koa';
import { randomToken } from '../domain/ids';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a sane incoming `X-Request-Id`, or makes one; every response carries it. */
export function requestId() {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const id = SANE_REQUEST_ID.test(incoming) ? incoming : `req_${randomToken(96)}`;
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}
