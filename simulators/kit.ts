/**
 * The small HTTP server the provider simulators share: routing, JSON bodies, request recording, and the fault
 * knobs tests use (429 bursts, 5xx faults, slow responses). Each simulator supplies the provider's own error
 * bodies for the faults. The handle and control types (./sim-handle), the request and answer types
 * (./sim-routes) and the small helpers (./sim-util) are re-exported, so a simulator imports its tools from here.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FaultControl, PendingRequest, RecordedExchange, RequestMatch } from './sim-handle';
import { compile, dispatch, type Handler, type Route, type SimResponse } from './sim-routes';
import { bearerKey } from './sim-util';

export type { Handler, SimRequest, SimResponse } from './sim-routes';

export { bearerKey, randomChars, now, isoSeconds, testIp } from './sim-util';
export {
  DEFAULT_BOOT_DELAY_MS,
  type CommonControl,
  type FaultControl,
  type PendingRequest,
  type RecordedExchange,
  type RequestMatch,
  type SimHandle,
  type SimInstanceView,
  type SimulatorOptions,
} from './sim-handle';

/**
 * Where a simulator serves its own control knobs over HTTP (./control-routes). No provider's API has a path
 * under it, and it is the simulator's own server that answers it: a real provider never sees these requests.
 */
export const CONTROL_PREFIX = '/_sim';

export interface FaultResponses {
  rateLimited(retryAfterSeconds: number | null): SimResponse;
  serverError(status: number): SimResponse;
  notFound(path: string): SimResponse;
  badJson(): SimResponse;
}

interface CountedFault {
  remaining: number;
  match?: RequestMatch;
  status: number;
  retryAfterSeconds: number | null;
  afterHandling: boolean;
}

function matches(m: RequestMatch | undefined, method: string, path: string, key: string | null): boolean {
  if (!m) return true;
  if (m.key !== undefined && m.key !== key) return false;
  if (m.method && m.method.toUpperCase() !== method) return false;
  if (m.path instanceof RegExp) return m.path.test(path);
  if (typeof m.path === 'string') return m.path.replace(/\/+$/, '') === path.replace(/\/+$/, '');
  return true;
}

export class SimServer implements FaultControl {
  private readonly routes: Route[] = [];
  /** The control paths: never slowed, failed or recorded, so turning a knob does not turn itself. */
  private readonly controlRoutes: Route[] = [];
  /** Requests received whose answer has not been sent yet (a slowed create, a terminate in flight). */
  private readonly inFlight = new Set<PendingRequest>();
  private rateLimits: CountedFault[] = [];
  private errors: CountedFault[] = [];
  /** Per key (`''`: any key), so tests of different accounts can slow their own requests side by side. */
  private latency = new Map<string, { ms: number; match?: RequestMatch; afterHandling: boolean }>();
  private recorded: RecordedExchange[] = [];
  private seq = 0;
  private readonly timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private server: http.Server | null = null;
  private closed = false;

  constructor(
    private readonly faults: FaultResponses,
    private readonly recordLimit = 2000,
  ) {}

  route(method: string, pattern: string, handler: Handler): void {
    this.routes.push({ method: method.toUpperCase(), pattern, ...compile(pattern), handler });
  }

  /** A control route; `pattern` is under {@link CONTROL_PREFIX}. */
  controlRoute(method: string, pattern: string, handler: Handler): void {
    if (!pattern.startsWith(`${CONTROL_PREFIX}/`))
      throw new Error(`control route ${pattern} outside ${CONTROL_PREFIX}`);
    this.controlRoutes.push({ method: method.toUpperCase(), pattern, ...compile(pattern), handler });
  }

  /** The fault knobs every simulator's `control` exposes, bound to this server. */
  faultControl(): FaultControl {
    return {
      rateLimit: (c, o) => this.rateLimit(c, o),
      serverErrors: (c, o) => this.serverErrors(c, o),
      setLatency: (ms, o) => this.setLatency(ms, o),
      requests: (m) => this.requests(m),
      pending: (m) => this.pending(m),
      clearRequests: () => this.clearRequests(),
      resetFaults: () => this.resetFaults(),
    };
  }

  rateLimit(count: number, opts: { match?: RequestMatch; retryAfterSeconds?: number | null } = {}): void {
    this.rateLimits.push({
      remaining: count,
      match: opts.match,
      status: 429,
      retryAfterSeconds: opts.retryAfterSeconds === undefined ? 1 : opts.retryAfterSeconds,
      afterHandling: false,
    });
  }

  serverErrors(count: number, opts: { match?: RequestMatch; status?: number; afterHandling?: boolean } = {}): void {
    this.errors.push({
      remaining: count,
      match: opts.match,
      status: opts.status ?? 500,
      retryAfterSeconds: null,
      afterHandling: opts.afterHandling ?? false,
    });
  }

  setLatency(ms: number, opts: { match?: RequestMatch; afterHandling?: boolean } = {}): void {
    const slot = opts.match?.key ?? '';
    if (ms > 0) this.latency.set(slot, { ms, match: opts.match, afterHandling: opts.afterHandling ?? false });
    else if (opts.match?.key === undefined) this.latency.clear();
    else this.latency.delete(slot);
  }

  requests(match?: RequestMatch): RecordedExchange[] {
    return this.recorded.filter((r) => matches(match, r.method, r.path, r.key ?? null));
  }

  clearRequests(): void {
    this.recorded = [];
  }

  pending(match?: RequestMatch): PendingRequest[] {
    return [...this.inFlight].filter((r) => matches(match, r.method, r.path, r.key));
  }

  resetFaults(): void {
    this.rateLimits = [];
    this.errors = [];
    this.latency.clear();
  }

  async listen(host: string, port: number): Promise<string> {
    const server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`simulator error: ${err instanceof Error ? err.message : String(err)}`);
        }
      });
    });
    // Connections stay open between requests, as at the real APIs: an idle one is closed after 5 s (Node's
    // default). fetch keeps a connection for the server's keep-alive time less 1 s, so a 1 s timeout made every
    // request open a new connection.
    server.keepAliveTimeout = 5000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const addr = server.address() as AddressInfo;
    const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return `http://${h}:${addr.port}`;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) {
      clearTimeout(t.timer);
      t.resolve();
    }
    this.timers.clear();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.timers.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      entry.timer.unref();
      this.timers.add(entry);
    });
  }

  private takeFault(
    list: CountedFault[],
    method: string,
    path: string,
    key: string | null,
    afterHandling: boolean,
  ): CountedFault | null {
    const f = list.find(
      (x) => x.remaining > 0 && x.afterHandling === afterHandling && matches(x.match, method, path, key),
    );
    if (!f) return null;
    f.remaining -= 1;
    return f;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://sim.local');
    const path = url.pathname;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = undefined;
    let badJson = false;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        badJson = true;
      }
    }

    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) {
      const answer = badJson
        ? this.faults.badJson()
        : await dispatch(this.controlRoutes, method, path, url.searchParams, req.headers, body);
      this.send(res, answer ?? { status: 404, body: { error: `no control route ${method} ${path}` } });
      return;
    }

    const key = bearerKey(req.headers) ?? url.searchParams.get('api_key');
    const pending: PendingRequest = { at: Date.now(), method, path, key, body };
    this.inFlight.add(pending);
    try {
      await this.answer(res, { method, path, url, headers: req.headers, key, body, badJson });
    } finally {
      this.inFlight.delete(pending);
    }
  }

  private async answer(
    res: http.ServerResponse,
    req: {
      method: string;
      path: string;
      url: URL;
      headers: http.IncomingHttpHeaders;
      key: string | null;
      body: unknown;
      badJson: boolean;
    },
  ): Promise<void> {
    const { method, path, url, key, body, badJson } = req;
    const latency = [...this.latency.values()].find((l) => matches(l.match, method, path, key)) ?? null;
    if (latency && !latency.afterHandling) await this.sleep(latency.ms);

    let response: SimResponse;
    let route: string | null = null;
    let fault = false;
    const limited = this.takeFault(this.rateLimits, method, path, key, false);
    const failed = limited ? null : this.takeFault(this.errors, method, path, key, false);
    if (limited) {
      response = this.faults.rateLimited(limited.retryAfterSeconds);
      fault = true;
    } else if (failed) {
      response = this.faults.serverError(failed.status);
      fault = true;
    } else if (badJson) {
      response = this.faults.badJson();
    } else {
      const hit = this.routes
        .filter((r) => r.method === method)
        .map((r) => ({ r, m: r.re.exec(path) }))
        .find((x) => x.m !== null);
      if (!hit) {
        response = this.faults.notFound(path);
      } else {
        route = hit.r.pattern;
        const params: Record<string, string> = {};
        hit.r.keys.forEach((k, i) => (params[k] = decodeURIComponent(hit.m![i + 1]!)));
        response = await hit.r.handler({ method, path, query: url.searchParams, headers: req.headers, body, params });
      }
      const lost = this.takeFault(this.errors, method, path, key, true);
      if (lost) {
        response = this.faults.serverError(lost.status);
        fault = true;
      }
    }

    if (latency && latency.afterHandling) await this.sleep(latency.ms);

    this.record({
      seq: ++this.seq,
      at: Date.now(),
      method,
      path,
      query: Object.fromEntries(url.searchParams.entries()),
      key,
      body,
      route,
      status: response.status,
      // A stream's text is written after this record: recorded as text without it.
      response: response.rawBody !== undefined ? response.rawBody : response.stream ? '' : response.body,
      fault,
    });
    this.send(res, response);
  }

  private send(res: http.ServerResponse, response: SimResponse): void {
    if (this.closed || res.destroyed || res.writableEnded) return;
    const headers: Record<string, string> = { ...(response.headers ?? {}) };
    let payload = '';
    if (response.rawBody !== undefined) {
      payload = response.rawBody;
      headers['content-type'] = response.contentType ?? 'text/plain; charset=utf-8';
    } else if (response.body !== undefined) {
      payload = JSON.stringify(response.body);
      headers['content-type'] = response.contentType ?? 'application/json';
    }
    if (response.stream) {
      res.writeHead(response.status, { ...headers, 'content-type': response.contentType ?? 'text/event-stream' });
      response.stream(res);
      return;
    }
    res.writeHead(response.status, headers);
    res.end(payload);
  }

  private record(r: RecordedExchange): void {
    this.recorded.push(r);
    if (this.recorded.length > this.recordLimit) this.recorded.splice(0, this.recorded.length - this.recordLimit);
  }
}
