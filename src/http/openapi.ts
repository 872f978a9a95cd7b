/**
 * The OpenAPI 3.1 document, generated from the same route declarations (and zod schemas) the router uses.
 * The reference page at /docs renders it (docs-page.ts).
 */
import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Adds `.openapi()` to zod's prototypes; the generator needs it for path and query parameters.
extendZodWithOpenApi(z);
import { requiredScope, type RouteDef } from './route';
import { ErrorBody } from './schemas';

const COMMON_ERRORS: Record<number, string> = {
  400: 'Invalid JSON or input that fails its schema (`invalid_json`, `validation_error`)',
  401: 'Missing, malformed, unknown or revoked service key (`unauthenticated`, with WWW-Authenticate)',
  402:
    "The balance, less uncharged usage, (or the key's spend cap) does not cover the next hour (admission window) " +
    'of every live instance plus this one (`insufficient_balance`)',
  403: 'The API key lacks the scope this operation needs; the message names it (`forbidden`)',
  404: 'Not found, or it belongs to another account (`not_found`)',
  408: 'The request body was not received in time (`request_timeout`)',
  409: 'Conflict (`conflict`)',
  413: 'Body over 64 KiB (`payload_too_large`)',
  415: 'Body not sent as application/json (`unsupported_media_type`)',
  422:
    'Valid input the operation refuses (`unsupported_operation`, `provider_not_connected`, `no_capacity`, ' +
    '`limit_reached`: a per-account limit, named in details; see GET /v1/limits; `price_unknown`: a launch nobody ' +
    'quotes a price for)',
  429:
    'Rate limited (`rate_limited`, with Retry-After): per account (all its keys together), ' +
    'per client address for unauthenticated requests and failed authentications',
  500: 'An unexpected failure (`internal_error`, fixed message; quote the request_id)',
  502: 'The provider answered with an error we cannot map (`provider_error`)',
  503:
    'The provider (`provider_unavailable`) or our engine or database (`service_unavailable`, ' +
    'with Retry-After) is unreachable',
};

const ERROR_HEADERS: Record<number, Record<string, { description: string; schema: { type: string } }>> = {
  401: { 'WWW-Authenticate': { description: '`Bearer`', schema: { type: 'string' } } },
  429: { 'Retry-After': { description: 'seconds until a request will be accepted', schema: { type: 'string' } } },
  503: {
    'Retry-After': { description: 'seconds to wait before retrying (service_unavailable)', schema: { type: 'string' } },
  },
};

/**
 * Every error status an operation can answer: 429 everywhere (per key, or per address without one), 400 when
 * it takes any input, 401 behind a key, 404 with
 * path parameters, 408/413/415 wherever a body is read (every method but GET), and 500 and 503 everywhere
 * (any operation can meet a bug or an unreachable database), plus the route's own.
 */
export function errorStatuses(r: RouteDef): number[] {
  const statuses = new Set<number>([429, 500, 503, ...(r.errors ?? [])]);
  if (r.params || r.query || r.method !== 'get') statuses.add(400);
  if (r.auth) [401, 403].forEach((s) => statuses.add(s));
  if (r.params) statuses.add(404);
  if (r.method !== 'get') [408, 413, 415].forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

export function buildOpenApiDocument(routes: readonly RouteDef[], serverUrl?: string): object {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key (`gpuo_sk_…`): the one `npm run account:create` prints holds every scope; POST /v1/api-keys makes ' +
      'narrower ones. Each operation lists the one scope it needs.',
  });
  for (const r of routes) {
    const responses: Record<string, object> = {};
    for (const [status, res] of Object.entries(r.responses)) {
      responses[status] = {
        description: res.description,
        ...(res.schema ? { content: { 'application/json': { schema: res.schema } } } : {}),
        ...(res.content
          ? { content: Object.fromEntries(Object.entries(res.content).map(([type, schema]) => [type, { schema }])) }
          : {}),
      };
    }
    for (const status of errorStatuses(r)) {
      responses[String(status)] = {
        description: COMMON_ERRORS[status] ?? 'Error',
        ...(ERROR_HEADERS[status] ? { headers: ERROR_HEADERS[status] } : {}),
        content: { 'application/json': { schema: ErrorBody } },
      };
    }
    registry.registerPath({
      method: r.method,
      path: r.path,
      tags: [r.tag],
      summary: r.summary,
      description: r.description,
      // OpenAPI 3.1 lets a bearer scheme list role names: the one scope this operation needs.
      security: r.auth ? [{ [bearer.name]: [requiredScope(r)!] }] : [],
      request: {
        ...(r.params ? { params: r.params as z.AnyZodObject } : {}),
        ...(r.query ? { query: r.query as z.AnyZodObject } : {}),
        ...(r.body ? { body: { required: true, content: { 'application/json': { schema: r.body } } } } : {}),
      },
      responses: responses as never,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'GPU Orchestrator API',
      version: '1.0.0',
      description:
        'One API over RunPod, Vast.ai and Lambda. Errors always have the shape `{error: {code, message, details?, ' +
        'request_id}}`. A method a path does not serve is 405 `method_not_allowed` with an `Allow` header; OPTIONS ' +
        'on any path answers 204 with `Allow`. Authenticated responses carry `Cache-Control: no-store`.',
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
  });
}
