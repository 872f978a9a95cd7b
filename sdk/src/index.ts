/**
 * The typed client of the GPU orchestrator API: `openapi-fetch` over types generated from the served OpenAPI
 * document (src/schema.ts), and a thin layer: typed errors by code, an `Idempotency-Key` on every launch,
 * retries honouring `Retry-After` on 429 and 503, and paging helpers.
 */
import createClient, { type Client } from 'openapi-fetch';
import { errorFromResponse } from './errors';
import type { paths } from './schema';

export * from './errors';
export type { components, paths } from './schema';

type Body<P extends keyof paths, M extends 'post' | 'put'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
export type LaunchBody = Body<'/v1/compute/launch', 'post'>;
export type PlanBody = Body<'/v1/compute/plan', 'post'>;
export type CreateApiKeyBody = Body<'/v1/api-keys', 'post'>;
export type CreateScheduleBody = Body<'/v1/schedules', 'post'>;

export interface GpuoOptions {
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  apiKey: string;
  /**
   * Retries of a 429, or of a 503 on a request safe to repeat (GET, DELETE, or one with an Idempotency-Key);
   * default 3.
   */
  maxRetries?: number;
  /** The longest wait honoured from `Retry-After` (longer answers are returned as errors); default 30 s. */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
}

/** A page as list endpoints answer it. */
export interface Page<T> {
  data: T[];
  has_more?: boolean;
  next_cursor?: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** fetch with retries: 429 always (nothing was done), 503 only when repeating the request is safe. */
function retryingFetch(options: GpuoOptions): (input: Request) => Promise<Response> {
  const base = options.fetch ?? fetch;
  const maxRetries = options.maxRetries ?? 3;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;
  return async (request) => {
    const repeatable = ['GET', 'HEAD', 'DELETE'].includes(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const response = await base(request.clone());
      const retryable = response.status === 429 || (response.status === 503 && repeatable);
      if (!retryable || attempt >= maxRetries) return response;
      const seconds = Number(response.headers.get('retry-after'));
      const delay = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 2 ** attempt * 500;
      if (delay > maxDelay) return response;
      await sleep(delay);
    }
  };
}

async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromResponse(response, error);
  return data as T;
}

/** One event of a followed log: an output line, or the end with the job's (or instance's) status and exit code. */
export type LogEvent = { line: string } | { end: { status: string; exit_code: number | null } };

/** The events of a followed log (`follow=true`), from the answer's server-sent events. */
async function* logEvents(
  call: Promise<{ data?: unknown; error?: unknown; response: Response }>,
): AsyncGenerator<LogEvent> {
  const { error, response } = await call;
  if (!response.ok) throw errorFromResponse(response, error);
  const decoder = new TextDecoder();
  let buffer = '';
  let kind = 'message';
  let data: string[] = [];
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') {
        if (data.length && kind === 'end') {
          yield { end: JSON.parse(data.join('\n')) as { status: string; exit_code: number | null } };
          return;
        }
        if (data.length) yield { line: data.join('\n') };
        [kind, data] = ['message', []];
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith('event:')) kind = line.slice(6).trim();
    }
  }
}

/** A new random Idempotency-Key (a retried launch with the same key gets the same instance). */
export function newIdempotencyKey(): string {
  return `sdk_${crypto.randomUUID()}`;
}

export function createGpuoClient(options: GpuoOptions) {
  const raw: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(options),
  });

  /** Every item of a cursor-paged list, page after page. */
  async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
    let cursor: string | undefined;
    for (;;) {
      const page = await fetchPage(cursor);
      yield* page.data;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  return {
    /** The generated openapi-fetch client, for anything the helpers below do not cover. */
    raw,
    paginate,

    offers: (gpu?: string) =>
      gpu ? unwrap(raw.GET('/v1/pricing/compare', { params: { query: { gpu } } })) : unwrap(raw.GET('/v1/pricing')),
    plan: (body: PlanBody) => unwrap(raw.POST('/v1/compute/plan', { body })),
    /** Launches with an Idempotency-Key (generated unless given): retries never launch twice. */
    launch: (body: LaunchBody, opts: { idempotencyKey?: string } = {}) =>
      unwrap(
        raw.POST('/v1/compute/launch', {
          body,
          headers: { 'Idempotency-Key': opts.idempotencyKey ?? newIdempotencyKey() },
        }),
      ),
    instances: () => unwrap(raw.GET('/v1/compute')),
    stop: (id: string) =>
      unwrap(raw.POST('/v1/compute/{provider_instance_id}/stop', { params: { path: { provider_instance_id: id } } })),
    start: (id: string) =>
      unwrap(raw.POST('/v1/compute/{provider_instance_id}/start', { params: { path: { provider_instance_id: id } } })),
    terminate: (id: string) =>
      unwrap(
        raw.POST('/v1/compute/{provider_instance_id}/terminate', { params: { path: { provider_instance_id: id } } }),
      ),
    /** The last lines of a job's attempt (the latest unless `attempt`), as text. */
    jobLogs: (id: string, query: { attempt?: number; tail?: number } = {}) =>
      unwrap(raw.GET('/v1/jobs/{id}/logs', { params: { path: { id }, query }, parseAs: 'text' })) as Promise<string>,
    /** Follows a job's attempt: its last lines, new ones while it runs, then the end (status, exit code). */
    followJobLogs: (id: string, query: { attempt?: number; tail?: number } = {}) =>
      logEvents(
        raw.GET('/v1/jobs/{id}/logs', {
          params: { path: { id }, query: { ...query, follow: 'true' } },
          parseAs: 'stream',
        }),
      ),
    /** The last lines of an instance's container output, as text. */
    instanceLogs: (id: string, query: { tail?: number } = {}) =>
      unwrap(
        raw.GET('/v1/compute/{provider_instance_id}/logs', {
          params: { path: { provider_instance_id: id }, query },
          parseAs: 'text',
        }),
      ) as Promise<string>,
    /** Follows an instance's output until it ends. */
    followInstanceLogs: (id: string, query: { tail?: number } = {}) =>
      logEvents(
        raw.GET('/v1/compute/{provider_instance_id}/logs', {
          params: { path: { provider_instance_id: id }, query: { ...query, follow: 'true' } },
          parseAs: 'stream',
        }),
      ),
    balance: () => unwrap(raw.GET('/v1/billing/balance')),
    transactions: (
      query: {
        type?: 'instance_charge' | 'instance_storage_charge' | 'credit_topup' | 'credit_grant';
        limit?: number;
      } = {},
    ) =>
      paginate(
        (cursor) =>
          unwrap(raw.GET('/v1/billing/transactions', { params: { query: { ...query, cursor } as never } })) as Promise<
            Page<Record<string, unknown>>
          >,
      ),
    events: (query: { limit?: number } = {}) =>
      paginate(
        (cursor) =>
          unwrap(raw.GET('/v1/events', { params: { query: { ...query, cursor } as never } })) as Promise<
            Page<Record<string, unknown>>
          >,
      ),
    schedules: () => unwrap(raw.GET('/v1/schedules')),
    createSchedule: (body: CreateScheduleBody) => unwrap(raw.POST('/v1/schedules', { body })),
    apiKeys: () => unwrap(raw.GET('/v1/api-keys')),
    createApiKey: (body: CreateApiKeyBody) => unwrap(raw.POST('/v1/api-keys', { body })),
    revokeApiKey: (id: string) => unwrap(raw.DELETE('/v1/api-keys/{id}', { params: { path: { id } } })),
  };
}
export type GpuoClient = ReturnType<typeof createGpuoClient>;
