/**
 * The outermost middleware: request id, JSON body, and the one place errors become responses. One Koa
 * layer instead of three keeps the per-request cost of the hot read paths low (see bench:pricing).
 */
import type { Context, Next } from 'koa';
import { NotFoundError } from '../errors';
import type { Logger } from '../logger';
import { expectsBody, readJsonBody } from './body';
import { respondWithError } from './error-handler';
import { assignRequestId } from './request-id';

export function edge(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    assignRequestId(ctx);
    try {
      if (expectsBody(ctx)) await readJsonBody(ctx);
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new NotFoundError(`No route matches ${ctx.method} ${ctx.path}.`);
      }
    } catch (err) {
      respondWithError(ctx, err, logger);
    }
  };
}
