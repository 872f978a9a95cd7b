/**
 * JSON over HTTP for the provider adapters: one place that applies the per-call timeout, turns HTTP and network
 * failures into {@link ProviderRequestError} kinds, and keeps the provider key out of every message and log line.
 */
import { ProviderRequestError, redactSecrets, type ProviderFailureKind } from '../errors';
import type { Logger } from '../logger';
import { recordProviderCall } from '../metrics';
import type { ProviderId } from './types';

/** Used when a 429 carries no usable `Retry-After` (Vast never sends one). */
export const DEFAULT_RETRY_AFTER_MS = 1_000;
const MAX_MESSAGE_LENGTH = 500;

export type QueryValue = string | number | boolean | undefined;

export interface ProviderHttpOptions {
  provider: ProviderId;
  /** Provider display name used in messages ("RunPod"). */
  providerName: string;
  baseUrl: string;
  timeoutMs: number;
  logger: Logger;
  /** How the key is sent. */
  authHeaders(apiKey: string): Record<string, string>;
  /** The provider's own error text from an error response body. */
  errorMessage(body: unknown, text: string): string | undefined;
  /**
   * Lets an adapter recognize provider-specific failures (capacity wordings, ...) before the generic status
   * mapping. Return `undefined` to fall through.
   */
  classify?(status: number, message: string, body: unknown): ProviderFailureKind | undefined;
  defaultRetryAfterMs?: number;
}

export interface ProviderRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** `undefined` sends no Authorization header (public endpoints). */
  apiKey: string | undefined;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Statuses handed back to the caller instead of thrown (e.g. 404 for idempotent deletes). */
  accept?: readonly number[];
}

export interface ProviderResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ProviderHttp {
  request<T = unknown>(req: ProviderRequest): Promise<ProviderResponse<T>>;
  /**
   * Opens a streamed answer (server-sent events) and returns it unread: the timeout bounds the wait for its
   * status and headers only, `signal` ends it. An error status is thrown as `request` throws it.
   */
  stream(req: ProviderRequest & { signal?: AbortSignal; headers?: Record<string, string> }): Promise<Response>;
  /** Builds the adapter's error for a response the adapter itself judged a failure. */
  errorFor(
    kind: ProviderFailureKind,
    message: string,
    apiKey: string | undefined,
    status?: number,
  ): ProviderRequestError;
}

/** Parses `Retry-After` (delta-seconds or an HTTP date) into milliseconds. */
export function parseRetryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** The generic status mapping; adapters refine it through `classify`. */
export function kindForStatus(status: number): ProviderFailureKind {
  if (status === 401 || status === 403) return 'invalid_key';
  if (status === 429) return 'rate_limited';
  if (status === 404) return 'not_found';
  if (status >= 500) return 'transient';
  return 'provider_error';
}

function joinUrl(baseUrl: string, path: string, query?: Record<string, QueryValue>): string {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function describeNetworkError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    const code = cause && typeof cause === 'object' && 'code' in cause ? String((cause as { code: unknown }).code) : '';
    return code ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

/**
 * True when fetch failed on the way to or from the provider (refused, reset, DNS, TLS, a body cut short), as
 * opposed to a local error (a header value Node refuses, a bad URL), which is ours to fix and never
 * "unreachable".
 */
function isNetworkFailure(err: unknown): boolean {
  if (isTimeout(err)) return true;
  // By name, not instanceof: fetch's TypeError comes from Node's realm, not jest's. undici says "fetch failed"
  // for every transport failure (the cause carries the socket error) and "terminated" for a body cut short.
  const { name, message } = (err ?? {}) as { name?: unknown; message?: unknown };
  return name === 'TypeError' && (message === 'fetch failed' || message === 'terminated');
}

/** What Node's fetch accepts in a header value (no control characters, nothing beyond Latin-1; we allow ASCII). */
const SENDABLE_HEADER_VALUE = /^[\t\x20-\x7e]*$/;

function isTimeout(err: unknown): boolean {
  // AbortSignal.timeout rejects with a DOMException, which is not an `Error` in every realm (e.g. under jest).
  const name = err && typeof err === 'object' && 'name' in err ? (err as { name: unknown }).name : undefined;
  return name === 'TimeoutError' || name === 'AbortError';
}

export function createProviderHttp(opts: ProviderHttpOptions): ProviderHttp {
  const defaultRetryAfterMs = opts.defaultRetryAfterMs ?? DEFAULT_RETRY_AFTER_MS;

  const errorFor = (
    kind: ProviderFailureKind,
    message: string,
    apiKey: string | undefined,
    status?: number,
    retryAfterMs?: number,
  ): ProviderRequestError => {
    const clean = redactSecrets(message, [apiKey]).slice(0, MAX_MESSAGE_LENGTH);
    return new ProviderRequestError(opts.provider, kind, clean, status, retryAfterMs);
  };

  async function request<T>(req: ProviderRequest): Promise<ProviderResponse<T>> {
    const url = joinUrl(opts.baseUrl, req.path, req.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.apiKey !== undefined) Object.assign(headers, opts.authHeaders(req.apiKey));
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (!Object.values(headers).every((v) => SENDABLE_HEADER_VALUE.test(v))) {
      // Only the key comes from outside; say so without quoting any of it. Keys are checked as printable ASCII
      // when connected, so this is a key stored before that rule.
      throw errorFor(
        'invalid_key',
        `the stored ${opts.providerName} API key contains characters an HTTP header cannot carry; connect the key ` +
          `again`,
        req.apiKey,
      );
    }
    const started = Date.now();
    const log = { provider: opts.provider, method: req.method, path: req.path };

    let res: Response;
    let text: string;
    try {
      const signal = AbortSignal.timeout(opts.timeoutMs);
      res = await fetch(url, {
        method: req.method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal,
      });
      text = await res.text();
    } catch (err) {
      if (!isNetworkFailure(err)) throw err;
      const message = isTimeout(err)
        ? `${opts.providerName} did not answer within ${opts.timeoutMs} ms`
        : `${opts.providerName} could not be reached: ${describeNetworkError(err)}`;
      const error = errorFor('transient', message, req.apiKey);
      recordProviderCall(opts.provider, req.method, 'transient', (Date.now() - started) / 1000);
      opts.logger.warn('provider request failed', { ...log, ms: Date.now() - started, error: error.message });
      throw error;
    }

    const body = parseBody(text);
    opts.logger.debug('provider request', { ...log, status: res.status, ms: Date.now() - started });
    if ((res.status >= 200 && res.status < 300) || req.accept?.includes(res.status)) {
      recordProviderCall(opts.provider, req.method, 'ok', (Date.now() - started) / 1000);
      return { status: res.status, body: body as T, headers: res.headers };
    }
    throw failure(req, res, text, started);
  }

  /** The error for an answer with an error status (its body read as `text`), recorded and logged. */
  function failure(req: ProviderRequest, res: Response, text: string, started: number): ProviderRequestError {
    const body = parseBody(text);
    const providerText = opts.errorMessage(body, text)?.trim() || `HTTP ${res.status}`;
    const kind = opts.classify?.(res.status, providerText, body) ?? kindForStatus(res.status);
    const retryAfterMs =
      kind === 'rate_limited' ? (parseRetryAfterMs(res.headers.get('retry-after')) ?? defaultRetryAfterMs) : undefined;
    const error = errorFor(kind, providerText, req.apiKey, res.status, retryAfterMs);
    recordProviderCall(opts.provider, req.method, kind, (Date.now() - started) / 1000);
    opts.logger.debug('provider error', { provider: opts.provider, path: req.path, status: res.status, kind });
    return error;
  }

  async function stream(
    req: ProviderRequest & { signal?: AbortSignal; headers?: Record<string, string> },
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...req.headers };
    if (req.apiKey !== undefined) Object.assign(headers, opts.authHeaders(req.apiKey));
    const started = Date.now();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new DOMException('timed out', 'TimeoutError')), opts.timeoutMs);
    const signal = req.signal ? AbortSignal.any([abort.signal, req.signal]) : abort.signal;
    let res: Response;
    try {
      res = await fetch(joinUrl(opts.baseUrl, req.path, req.query), { method: req.method, headers, signal });
    } catch (err) {
      if (!isNetworkFailure(err) || req.signal?.aborted) throw err;
      recordProviderCall(opts.provider, req.method, 'transient', (Date.now() - started) / 1000);
      throw errorFor(
        'transient',
        isTimeout(err)
          ? `${opts.providerName} did not answer within ${opts.timeoutMs} ms`
          : `${opts.providerName} could not be reached: ${describeNetworkError(err)}`,
        req.apiKey,
      );
    } finally {
      clearTimeout(timer);
    }
    if (res.status >= 200 && res.status < 300) {
      recordProviderCall(opts.provider, req.method, 'ok', (Date.now() - started) / 1000);
      return res;
    }
    throw failure(req, res, await res.text().catch(() => ''), started);
  }

  return { request, stream, errorFor: (kind, message, apiKey, status) => errorFor(kind, message, apiKey, status) };
}

/** Reads a string field from an unknown JSON object. */
export function str(obj: unknown, key: string): string | undefined {
  if (obj && typeof obj === 'object' && key in obj) {
    const v = (obj as Record<string, unknown>)[key];
    return typeof v === 'string' ? v : undefined;
  }
  return undefined;
}

/** Reads a finite number field (numbers or numeric strings) from an unknown JSON object. */
export function num(obj: unknown, key: string): number | undefined {
  if (obj && typeof obj === 'object' && key in obj) {
    const v = (obj as Record<string, unknown>)[key];
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Rounds a dollar amount to micro-dollars so float noise never reaches a price. */
export function roundDollars(dollars: number): number {
  return Math.round(dollars * 1_000_000) / 1_000_000;
}
