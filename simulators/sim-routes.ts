/** A simulator's requests, answers and routes: path patterns with `:name` parameters, matched in order. */
import type http from 'node:http';

export interface SimRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  params: Record<string, string>;
}

export interface SimResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Defaults to application/json when a body is present. */
  contentType?: string;
  /** Sent as is instead of JSON. */
  rawBody?: string;
  /** A streamed answer (server-sent events): called with the response once the status and headers are sent. */
  stream?: (res: http.ServerResponse) => void;
}

export type Handler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

export function compile(pattern: string): { re: RegExp; keys: string[] } {
  const keys: string[] = [];
  const body = pattern
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => {
      if (seg.startsWith(':')) {
        keys.push(seg.slice(1));
        return '([^/]+)';
      }
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { re: new RegExp(`^${body}/?$`), keys };
}

export type Route = { method: string; pattern: string; re: RegExp; keys: string[]; handler: Handler };

function findRoute(routes: Route[], method: string, path: string) {
  for (const route of routes) {
    if (route.method !== method) continue;
    const m = route.re.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    route.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1]!)));
    return { route, params };
  }
  return null;
}

export async function dispatch(
  routes: Route[],
  method: string,
  path: string,
  query: URLSearchParams,
  headers: http.IncomingHttpHeaders,
  body: unknown,
): Promise<SimResponse | null> {
  const hit = findRoute(routes, method, path);
  if (!hit) return null;
  return hit.route.handler({ method, path, query, headers, body, params: hit.params });
}
