/**
 * The outermost middleware: request id and the one place errors become responses. One Koa layer instead of
 * several keeps the per-request cost of the hot read paths low (see bench:pricing). Bodies are read by the
 * routes, after authentication (route.ts).
 */
import type { Context, Next } from 'koa';
import { NotFoundError } from '../errors';
import type { Logger } from '../logger';
import { respondWithError } from './error-handler';
import { assignRequestId } from './request-id';

export function edge(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    assignRequestId(ctx);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new NotFoundError(`No route matches ${ctx.method} ${ctx.path}.`);
      }
    } catch (err) {
      respondWithError(ctx, err, logger);
    }
    // A body we answered without reading (401, 404, 408, 413, ...): close the connection after the answer
    // instead of letting the client keep trickling bytes into it.
    if (!ctx.req.complete && ctx.method !== 'GET' && ctx.method !== 'HEAD' && !ctx.headerSent) ctx.set('Connection', 'close');
  };
}
