/**
 * Routes are declared once, with zod schemas for path, query and body; the same declaration registers the
 * Koa handler (which only ever sees parsed input) and feeds the OpenAPI document.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z, type ZodTypeAny } from 'zod';
import type { ApiKeyRow } from '../db/queries/api-keys';
import { scopeForOperation, type Scope } from '../domain/api-key-scopes';
import { ApiError, ForbiddenError, ValidationError } from '../errors';
import { expectsBody, readJsonBody, type BodyLimits } from './body';
import { zodToValidationError } from './validation';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Set on authenticated routes. */
  accountId: string;
  /** The key the request authenticated with (authenticated routes). */
  apiKey: ApiKeyRow;
  ctx: Context;
}

export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef<
  P extends ZodTypeAny = ZodTypeAny,
  Q extends ZodTypeAny = ZodTypeAny,
  B extends ZodTypeAny = ZodTypeAny,
> {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/ssh-keys/{id}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** Bearer service key required (everything but pricing, health and docs). */
  auth: boolean;
  /**
   * The scope the key needs (authenticated routes); default from method and path (see `scopeForOperation`):
   * `read` for GET, the family's write scope otherwise. Shown in the OpenAPI document's `security`.
   */
  scope?: Scope;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Documented success responses; error responses are added for every route. `content` documents answers
   * that are not JSON (by media type); `schema` is the JSON answer's.
   */
  responses: Record<
    number,
    { description: string; schema?: ZodTypeAny; content?: Record<string, ZodTypeAny>; headers?: Record<string, string> }
  >;
  /** Extra documented error statuses beyond the ones every route has. */
  errors?: number[];
  handler: (input: RouteInput<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<RouteResult> | RouteResult;
}

const emptyObject = z.object({}).strict();
/** A route without a body schema takes no body; `{}` is tolerated. */
const noBody = z.union([z.undefined(), emptyObject]);

export class ApiRouter {
  readonly router = new Router();
  readonly definitions: RouteDef[] = [];
  /**
   * Routes without path parameters, by method then path: found with two Map lookups (no per-request string
   * built) instead of a regex scan.
   */
  private readonly staticRoutes = new Map<string, Map<string, { route: string; chain: Middleware[] }>>();

  /** Methods of the routes without path parameters, by path (for `Allow`). */
  private readonly staticMethods = new Map<string, Set<string>>();

  constructor(
    private readonly authenticate: Middleware,
    private readonly bodyLimits: BodyLimits = {},
    /** Runs before every route without a key (the per-address limit of unauthenticated requests). */
    private readonly publicGate?: Middleware,
  ) {}

  add<P extends ZodTypeAny, Q extends ZodTypeAny, B extends ZodTypeAny>(def: RouteDef<P, Q, B>): void {
    this.definitions.push(def as unknown as RouteDef);
    const koaPath = def.path.replace(/\{(\w+)\}/g, ':$1');
    // Schemas are fixed per route; a route that declares no query ignores the query string, and a GET
    // has no body to check, so the hot read paths skip parsing they do not need.
    const paramsSchema = def.params ?? emptyObject;
    const bodySchema = def.method === 'get' ? undefined : (def.body ?? noBody);
    const scope = requiredScope(def);
    const apply = (ctx: Context, result: RouteResult) => {
      if (result.headers) for (const k in result.headers) ctx.set(k, result.headers[k]!);
      ctx.status = result.status ?? 200;
      if (result.body !== undefined) ctx.body = result.body;
    };
    const run = (ctx: Context): Promise<void> | void => {
      const params = def.params ? parse(paramsSchema, ctx.params ?? {}, 'path') : {};
      const query = def.query ? parse(def.query, { ...ctx.query }, 'query') : {};
      const body = bodySchema ? parse(bodySchema, ctx.state.body, 'body') : undefined;
      const result = def.handler({
        params,
        query,
        body,
        accountId: ctx.state.accountId as string,
        apiKey: ctx.state.apiKey as ApiKeyRow,
        ctx,
      });
      // A synchronous handler (GET /v1/pricing) is answered without a promise of ours in between.
      if (result instanceof Promise) return result.then((r) => apply(ctx, r));
      apply(ctx, result);
    };
    // Not an async function: a throw reaches the edge through the caller's promise chain all the same (Koa's
    // compose and the static dispatch below both run middleware inside a promise).
    const handle: Middleware = (ctx) => {
      // Before the body is read: a key without the scope learns nothing more and makes us wait for nothing.
      if (scope && !(ctx.state.apiKey as ApiKeyRow).scopes.includes(scope)) {
        throw new ForbiddenError(
          `This API key lacks the scope "${scope}" that ${def.method.toUpperCase()} ${def.path} needs.`,
        );
      }
      // Read only now, after authentication: an unauthenticated client never gets to make us wait for a body.
      if (bodySchema && expectsBody(ctx)) return readJsonBody(ctx, this.bodyLimits).then(() => run(ctx));
      return run(ctx) as Promise<void>;
    };
    const chain = def.auth ? [this.authenticate, handle] : this.publicGate ? [this.publicGate, handle] : [handle];
    // The declared template names the request in logs and metrics, also when auth or parsing refuses it.
    const named: Middleware = (ctx, next) => {
      ctx.state.route = def.path;
      return next();
    };
    if (koaPath.includes(':')) this.router[def.method](koaPath, named, ...chain);
    else {
      const byPath =
        this.staticRoutes.get(def.method.toUpperCase()) ?? new Map<string, { route: string; chain: Middleware[] }>();
      byPath.set(koaPath, { route: def.path, chain });
      this.staticRoutes.set(def.method.toUpperCase(), byPath);
      const methods = this.staticMethods.get(koaPath) ?? new Set<string>();
      methods.add(def.method.toUpperCase());
      this.staticMethods.set(koaPath, methods);
    }
  }

  /** The `Allow` value for a path (every method some route serves there, plus HEAD and OPTIONS), or null. */
  allowedMethods(path: string): string | null {
    const methods = new Set(this.staticMethods.get(path));
    for (const layer of this.router.match(path, 'GET').path) for (const m of layer.methods) methods.add(m);
    if (methods.size === 0) return null;
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    return [...methods].sort((a, b) => order.indexOf(a) - order.indexOf(b)).join(', ');
  }

  /**
   * Dispatches the static routes, then everything else through @koa/router (path parameters). A path some
   * route serves answers OPTIONS with 204 and `Allow`, and any other method with 405 and `Allow`, the same
   * way whether or not the path has parameters.
   * The static table matters on hot public paths such as GET /v1/pricing: a Map lookup costs far less than
   * the router's per-request matching and composition.
   */
  routes(): Middleware {
    const dynamic = this.router.routes();
    // Not async (one promise less per request); Koa's compose turns a synchronous throw into a rejection.
    return (ctx, next) => {
      const requested = ctx.path;
      const path = requested.length > 1 && requested.endsWith('/') ? requested.slice(0, -1) : requested;
      const found = this.staticRoutes.get(ctx.method === 'HEAD' ? 'GET' : ctx.method)?.get(path);
      if (found) {
        ctx.state.route = found.route;
        const { chain } = found;
        if (chain.length === 1) return chain[0]!(ctx, next);
        return chain[0]!(ctx, () => chain[1]!(ctx, next));
      }
      return dynamic(ctx as never, () => {
        const allow = this.allowedMethods(path);
        if (!allow) return next();
        if (ctx.method === 'OPTIONS') {
          ctx.set('Allow', allow);
          ctx.status = 204;
          return Promise.resolve();
        }
        throw new ApiError(
          405,
          'method_not_allowed',
          `This path does not support ${ctx.method}; it allows ${allow}.`,
          undefined,
          { Allow: allow },
        );
      });
    };
  }
}

/** The scope an authenticated route needs, or null for a public one. */
export function requiredScope(def: Pick<RouteDef, 'auth' | 'scope' | 'method' | 'path'>): Scope | null {
  return def.auth ? (def.scope ?? scopeForOperation(def.method, def.path)) : null;
}

function parse<T extends ZodTypeAny>(schema: T, value: unknown, location: 'path' | 'query' | 'body'): z.infer<T> {
  if (location === 'body' && value === undefined && !schema.safeParse(undefined).success) {
    throw new ValidationError('A JSON body is required.', [{ path: 'body', message: 'required' }]);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw zodToValidationError(result.error, location);
  return result.data;
}
