/**
 * The outermost middleware: request id, the one place errors become responses, and the one request log line
 * and metrics sample per request. One Koa layer instead of several keeps the per-request cost of the hot read
 * paths low: Koa wraps each layer in a promise and binds a `next` per request. Bodies are read by the routes,
 * after authentication (route.ts).
 */
import type { Context, Middleware, Next } from 'koa';
import { NotFoundError } from '../errors';
import { requestLogLine, type Logger } from '../logger';
import { recordHttpRequest } from '../metrics';
import { respondWithError } from './error-handler';
import { assignRequestId, setRequestIdHeader } from './request-id';

/**
 * `inner` is the rest of the pipeline (the console, then the routes): called here directly, so that Koa's
 * application holds one middleware.
 */
export function edge(logger: Logger, inner: Middleware) {
  const logRequest = requestLogLine(logger);
  /** After the rest of the pipeline: the request id header, the metrics sample and the request line. */
  const finish = (ctx: Context, started: number, requestId: string) => {
    setRequestIdHeader(ctx, requestId);
    const method = ctx.req.method!;
    // A body we answered without reading (401, 404, 408, 413, ...): close the connection after the answer
    // instead of letting the client keep trickling bytes into it.
    if (method !== 'GET' && method !== 'HEAD' && !ctx.req.complete && !ctx.headerSent) ctx.set('Connection', 'close');
    const ms = performance.now() - started;
    const route = routeOf(ctx);
    const status = ctx.status;
    recordHttpRequest(method, route, status, ms / 1000);
    logRequest({
      request_id: requestId,
      account_id: ctx.state.accountId ?? null,
      method,
      route,
      path: ctx.path,
      status,
      ms: Math.round(ms * 100) / 100,
    });
  };
  const settle = (ctx: Context, err: unknown) => {
    try {
      if (err !== undefined) throw err;
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new NotFoundError(`No route matches ${ctx.method} ${ctx.path}.`);
      }
    } catch (failure) {
      respondWithError(ctx, failure, logger);
    }
  };
  // Not an async function, and the rest of the pipeline called directly rather than through Koa's compose:
  // a request answered synchronously (GET /v1/pricing) passes without a single promise of ours (each one
  // also runs the async hooks of the AsyncLocalStorage the database client installs).
  return (ctx: Context, next: Next): Promise<void> | void => {
    const started = performance.now();
    const requestId = assignRequestId(ctx);
    let result: Promise<void> | void;
    try {
      result = inner(ctx, next) as Promise<void> | void;
    } catch (err) {
      settle(ctx, err ?? new Error('a middleware threw without a reason'));
      return finish(ctx, started, requestId);
    }
    if (result === undefined || typeof (result as { then?: unknown }).then !== 'function') {
      settle(ctx, undefined);
      return finish(ctx, started, requestId);
    }
    return (result as Promise<void>).then(
      () => {
        settle(ctx, undefined);
        finish(ctx, started, requestId);
      },
      (err: unknown) => {
        settle(ctx, err ?? new Error('a middleware rejected without a reason'));
        finish(ctx, started, requestId);
      },
    );
  };
}

/**
 * Two middlewares as one, without Koa's compose between them (which wraps each call in a promise and binds
 * a `next` per request): `first` gets a `next` that runs `second`.
 */
export function sequence(first: Middleware, second: Middleware): Middleware {
  return (ctx, next) => first(ctx, () => second(ctx, next));
}

/** Socket-level failures that mean the client went away or sent a broken request, not that we failed. */
const CLIENT_SIDE_CODES = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
]);

function isClientSide(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (CLIENT_SIDE_CODES.has(code) || code.startsWith('HPE_'))) return true;
  return message === 'aborted' || message === 'Parse Error';
}

/**
 * Koa's application-level `error` listener: what reaches it happened outside the middleware (the socket
 * failed while a response was written or the request was still arriving). A client hanging up is expected
 * and logged at debug level; anything else is logged as an error. Without a listener Koa would print every
 * one of them, client aborts included, to stderr.
 */
export function logApplicationError(logger: Logger) {
  return (err: unknown, ctx?: Context) => {
    const fields = { request_id: ctx?.state?.requestId as string | undefined, method: ctx?.method, path: ctx?.path };
    if (isClientSide(err)) logger.debug('client went away', { ...fields, code: (err as { code?: unknown })?.code });
    else logger.error('unhandled application error', { ...fields, err, stack: (err as Error)?.stack });
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
