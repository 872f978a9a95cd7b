/**
 * The outermost middleware: request id, JSON body, the one place errors become responses, and the one
 * request log line and metrics sample per request. One Koa layer instead of five keeps the per-request cost
 * of the hot read paths low (see bench:pricing).
 */
import type { Context, Next } from 'koa';
import { NotFoundError } from '../errors';
import type { Logger } from '../logger';
import { recordHttpRequest } from '../metrics';
import { expectsBody, readJsonBody } from './body';
import { respondWithError } from './error-handler';
import { assignRequestId } from './request-id';

export function edge(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
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
    const ms = performance.now() - started;
    const route = routeOf(ctx);
    recordHttpRequest(ctx.method, route, ctx.status, ms / 1000);
    logger.info('request', {
      request_id: ctx.state.requestId,
      account_id: ctx.state.accountId ?? null,
      method: ctx.method,
      route,
      path: ctx.path,
      status: ctx.status,
      ms: Math.round(ms * 100) / 100,
    });
  };
}

/**
 * The route a request matched, as declared (`/v1/compute/{id}`): set by ApiRouter for declared routes, by
 * @koa/router for the operational ones; `unmatched` otherwise. Never the raw path (ids would make every
 * request its own metrics series).
 */
function routeOf(ctx: Context): string {
  const declared = ctx.state.route as string | undefined;
  if (declared) return declared;
  const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched : 'unmatched';
}
