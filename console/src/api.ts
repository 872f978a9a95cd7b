/**
 * The console's typed client of the served API. Every call sends the session's key as a bearer token (never
 * in a URL) and turns the API's error body `{error: {code, message, details, request_id}}` into an ApiError,
 * so pages show the API's own words (a 402 names its numbers).
 */
import { createGpuoClient, errorFromResponse, GpuoError, type LaunchBody } from '../../sdk/src';
import { parseEventStream } from './event-stream';
import type {
  Balance,
  ComputeList,
  CreditResponse,
  Instance,
  PriceHistory,
  PricingSnapshot,
  Transactions,
} from './types';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path?: string; message: string }[] = [],
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export interface Api {
  /** Any call of the API by method and path (the typed helpers below cover the common ones). */
  request<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** The signed-in key: its scopes decide which actions the console offers. */
  currentKey(): Promise<{ id: string; name: string; scopes: string[] }>;
  listInstances(): Promise<ComputeList>;
  stopInstance(id: string): Promise<Instance>;
  terminateInstance(id: string): Promise<Instance>;
  pricing(): Promise<PricingSnapshot>;
  /** The on-demand series, or with `spot` the spot series (only Vast.ai sells spot). */
  priceHistory(gpu: string, period: '24h' | '7d' | '30d', spot?: boolean): Promise<PriceHistory>;
  balance(): Promise<Balance>;
  transactions(type?: string): Promise<Transactions>;
  topUp(amount: number): Promise<CreditResponse>;
  /** A plain-text resource (a log): its body, or the API's error. */
  text(path: string, signal?: AbortSignal): Promise<string>;
  /**
   * Follows a `text/event-stream` (a log with `?follow=true`): each default event's data is a line; `end` closes it
   * with its JSON. Read with fetch, not EventSource, so the key stays in the Authorization header.
   */
  follow(path: string, on: StreamHandlers, signal: AbortSignal): Promise<void>;
}

export interface StreamHandlers {
  line(text: string): void;
  end(data: unknown): void;
}

export function createApi(key: string, baseUrl = location.origin): Api {
  // Every call goes through the project's SDK: typed errors, retries that honour Retry-After (429, and 503 on
  // requests safe to repeat), an Idempotency-Key on launches.
  const sdk = createGpuoClient({ baseUrl, apiKey: key, maxRetryDelayMs: 5_000 });
  async function call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const init = {
      body,
      headers:
        method === 'POST' && path === '/v1/billing/credit' ? { 'Idempotency-Key': crypto.randomUUID() } : undefined,
      cache: 'no-store' as const,
    };
    try {
      if (method === 'POST' && path === '/v1/compute/launch') return (await sdk.launch(body as LaunchBody)) as T;
      const raw = sdk.raw as unknown as Record<
        string,
        (p: string, i: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>
      >;
      const { data, error, response } = await raw[method]!(path, init);
      if (!response.ok) throw errorFromResponse(response, error);
      return data as T;
    } catch (err) {
      if (err instanceof GpuoError)
        throw new ApiError(
          err.status,
          err.code,
          err.message,
          (err.details ?? []) as ApiError['details'],
          err.requestId,
        );
      if (err instanceof ApiError) throw err;
      throw new ApiError(0, 'network_error', 'The service could not be reached. Check your connection and try again.');
    }
  }
  const q = (params: Record<string, string | undefined>) => {
    const s = new URLSearchParams(
      Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();
    return s ? `?${s}` : '';
  };
  /** Our own fetch for what the SDK does not stream: the key in the header, the API's error body kept. */
  async function raw(path: string, accept: string, signal?: AbortSignal): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(new URL(path, baseUrl), {
        headers: { authorization: `Bearer ${key}`, accept },
        cache: 'no-store',
        signal,
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(0, 'network_error', 'The service could not be reached. Check your connection and try again.');
    }
    if (!res.ok) {
      const body = (await res.json().catch(() => null)) as {
        error?: { code?: string; message?: string; details?: ApiError['details']; request_id?: string };
      } | null;
      throw new ApiError(
        res.status,
        body?.error?.code ?? 'http_error',
        body?.error?.message ?? res.statusText,
        body?.error?.details ?? [],
        body?.error?.request_id,
      );
    }
    return res;
  }
  return {
    text: async (path, signal) => (await raw(path, 'text/plain', signal)).text(),
    follow: async (path, on, signal) => {
      const res = await raw(path, 'text/event-stream', signal);
      if (!res.body) return;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const events = parseEventStream();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        for (const e of events.push(value)) {
          if (e.event === 'end') {
            let parsed: unknown;
            try {
              parsed = JSON.parse(e.data);
            } catch {
              parsed = null;
            }
            on.end(parsed);
            await reader.cancel();
            return;
          }
          if (e.event === 'message') on.line(e.data);
        }
      }
    },
    request: call,
    currentKey: () => call('GET', '/v1/api-keys/current'),
    listInstances: () => call('GET', '/v1/compute'),
    stopInstance: (id) => call('POST', `/v1/compute/${encodeURIComponent(id)}/stop`),
    terminateInstance: (id) => call('POST', `/v1/compute/${encodeURIComponent(id)}/terminate`),
    pricing: () => call('GET', '/v1/pricing'),
    priceHistory: (gpu, period, spot) =>
      call('GET', `/v1/pricing/history${q({ gpu, period, spot: spot ? 'true' : undefined })}`),
    balance: () => call('GET', '/v1/billing/balance'),
    transactions: (type) => call('GET', `/v1/billing/transactions${q({ type })}`),
    topUp: (amount) => call('POST', '/v1/billing/credit', { amount }),
  };
}
