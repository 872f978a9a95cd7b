/**
 * Routes are declared once, with zod schemas for path, query and body; the same declaration registers the
 * Koa handler (which only ever sees parsed input) and feeds the OpenAPI document.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z, type ZodTypeAny } from 'zod';
import { ValidationError } from '../errors';
import { zodToValidationError } from './validation';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Set on authenticated routes. */
  accountId: string;
  ctx: Context;
}

export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef<P extends ZodTypeAny = ZodTypeAny, Q extends ZodTypeAny = ZodTypeAny, B extends ZodTypeAny = ZodTypeAny> {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/ssh-keys/{id}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** Bearer service key required (everything but pricing, health and docs). */
  auth: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** Documented success responses; error responses are added for every route. */
  responses: Record<number, { description: string; schema?: ZodTypeAny; headers?: Record<string, string> }>;
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

  constructor(private readonly authenticate: Middleware) {}

  add<P extends ZodTypeAny, Q extends ZodTypeAny, B extends ZodTypeAny>(def: RouteDef<P, Q, B>): void {
    this.definitions.push(def as unknown as RouteDef);
    const koaPath = def.path.replace(/\{(\w+)\}/g, ':$1');
    const handle: Middleware = async (ctx) => {
      const params = parse(def.params ?? emptyObject, ctx.params ?? {}, 'path');
      const query = parse(def.query ?? z.object({}).passthrough(), { ...ctx.query }, 'query');
      const body = parse(def.body ?? noBody, ctx.state.body, 'body');
      const result = await def.handler({ params, query, body, accountId: ctx.state.accountId as string, ctx });
      for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
      ctx.status = result.status ?? 200;
      if (result.body !== undefined) ctx.body = result.body;
    };
    const chain = def.auth ? [this.authenticate, handle] : [handle];
    this.router[def.method](koaPath, ...chain);
  }
}

function parse<T extends ZodTypeAny>(schema: T, value: unknown, location: 'path' | 'query' | 'body'): z.infer<T> {
  if (location === 'body' && value === undefined && !schema.safeParse(undefined).success) {
    throw new ValidationError('A JSON body is required.', [{ path: 'body', message: 'required' }]);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw zodToValidationError(result.error, location);
  return result.data;
}
