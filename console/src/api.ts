/**
 * The console's typed client of the served API. Every call sends the session's key as a bearer token (never
 * in a URL) and turns the API's error body `{error: {code, message, details, request_id}}` into an ApiError,
 * so pages show the API's own words (a 402 names its numbers).
 */
import type { Balance, ComputeList, CreditResponse, Instance, PriceHistory, PricingSnapshot, Transactions } from './types';

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
  listInstances(): Promise<ComputeList>;
  stopInstance(id: string): Promise<Instance>;
  terminateInstance(id: string): Promise<Instance>;
  pricing(): Promise<PricingSnapshot>;
  priceHistory(gpu: string, period: '24h' | '7d' | '30d'): Promise<PriceHistory>;
  balance(): Promise<Balance>;
  transactions(type?: string): Promise<Transactions>;
  topUp(amount: number): Promise<CreditResponse>;
}

export function createApi(key: string, fetchImpl: typeof fetch = fetch.bind(globalThis)): Api {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST' && path === '/v1/billing/credit') headers['idempotency-key'] = crypto.randomUUID();
    let res: Response;
    try {
      res = await fetchImpl(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
    } catch {
      throw new ApiError(0, 'network_error', 'The service could not be reached. Check your connection and try again.');
    }
    const text = await res.text();
    const json = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const e = (json as { error?: { code?: string; message?: string; details?: ApiError['details']; request_id?: string } } | undefined)?.error;
      throw new ApiError(res.status, e?.code ?? 'http_error', e?.message ?? `HTTP ${res.status}`, e?.details ?? [], e?.request_id);
    }
    return json as T;
  }
  const q = (params: Record<string, string | undefined>) => {
    const s = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    return s ? `?${s}` : '';
  };
  return {
    request: call,
    listInstances: () => call('GET', '/v1/compute'),
    stopInstance: (id) => call('POST', `/v1/compute/${encodeURIComponent(id)}/stop`),
    terminateInstance: (id) => call('POST', `/v1/compute/${encodeURIComponent(id)}/terminate`),
    pricing: () => call('GET', '/v1/pricing'),
    priceHistory: (gpu, period) => call('GET', `/v1/pricing/history${q({ gpu, period })}`),
    balance: () => call('GET', '/v1/billing/balance'),
    transactions: (type) => call('GET', `/v1/billing/transactions${q({ type })}`),
    topUp: (amount) => call('POST', '/v1/billing/credit', { amount }),
  };
}
