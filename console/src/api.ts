/**
 * The console's typed client of the served API. Every call sends the session's key as a bearer token (never
 * in a URL) and turns the API's error body `{error: {code, message, details, request_id}}` into an ApiError,
 * so pages show the API's own words (a 402 names its numbers).
 */
import { createGpuoClient, errorFromResponse, GpuoError, type LaunchBody } from '../../sdk/src';
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
  priceHistory(gpu: string, period: '24h' | '7d' | '30d'): Promise<PriceHistory>;
  balance(): Promise<Balance>;
  transactions(type?: string): Promise<Transactions>;
  topUp(amount: number): Promise<CreditResponse>;
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
  return {
    request: call,
    currentKey: () => call('GET', '/v1/api-keys/current'),
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
