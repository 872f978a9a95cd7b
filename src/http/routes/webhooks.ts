import { z } from 'zod';
import { pathId } from '../text';
import {
  decodePageCursor,
  DeliveryStatus,
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
  type EventRow,
  type WebhookQueries,
} from '../../db/queries/webhooks';
import type { LimitQueries } from '../../db/queries/limits';
import { webhookUrlProblem, type WebhookUrlPolicy } from '../../domain/address-safety';
import { EVENT_KINDS } from '../../domain/event-kinds';
import { generateWebhookSecret, webhookSecretProblem } from '../../domain/webhook-signing';
import { NotFoundError, UnsupportedOperationError, ValidationError } from '../../errors';
import {
  resolveSafeAddress,
  systemResolver,
  UnsafeDestinationError,
  type Resolver,
} from '../../webhooks/webhook-sender';
import type { WebhookClient } from '../../workflow-clients/webhooks';
import { ListQuery, pageOf } from '../paging';
import type { ApiRouter } from '../route';
import { EventRecord, toEventRecord } from '../records/events';
import { Deleted, isoTimestamp } from '../schemas';

const noControlChars = (s: string) => !/\p{Cc}/u.test(s);

export const WebhookRecord = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(EVENT_KINDS)),
  active: z.boolean(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});
const WebhookWithSecret = WebhookRecord.extend({
  secret: z.string().describe('whsec_… signing secret: shown only here (and when set by PUT)'),
});

const Url = z
  .string()
  .min(1)
  .max(2048)
  .refine(noControlChars, 'must not contain control characters')
  .describe('https URL');
const Events = z
  .array(z.enum(EVENT_KINDS, { errorMap: () => ({ message: `must be one of ${EVENT_KINDS.join(', ')}` }) }))
  .min(1, 'must name at least one event kind')
  .max(EVENT_KINDS.length)
  .transform((e) => [...new Set(e)]);
const Secret = z
  .string()
  .max(200)
  .superRefine((s, ctx) => {
    const problem = webhookSecretProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe('whsec_ + base64 of 24..64 bytes; generated when omitted');

const CreateBody = z.object({ url: Url, events: Events, secret: Secret.optional() }).strict();
const UpdateBody = z
  .object({ url: Url.optional(), events: Events.optional(), secret: Secret.optional(), active: z.boolean().optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'must contain at least one of url, events, secret, active');

const IdParams = z.object({ id: pathId(100) }).strict();
const DeliveryParams = z.object({ id: pathId(100), delivery_id: pathId(100) }).strict();
const cursor = z
  .string()
  .refine(
    (c) => decodePageCursor(c) !== null,
    'is not a cursor from this list; pass next_cursor from the previous page',
  )
  .optional();
const DeliveriesQuery = z
  .object({ status: DeliveryStatus.optional(), limit: z.coerce.number().int().min(1).max(200).default(50), cursor })
  .strict();

const Attempt = z.object({
  attempted_at: isoTimestamp,
  status_code: z.number().nullable().describe('null when no HTTP answer came (refused, timeout, connection error)'),
  latency_ms: z.number(),
  response_body: z.string().nullable().describe('first 1 KiB'),
  error: z.string().nullable(),
  success: z.boolean(),
});
const DeliveryRecord = z.object({
  id: z.string().describe('also the webhook-id header of every attempt'),
  webhook_id: z.string(),
  event: EventRecord,
  status: DeliveryStatus,
  attempt_count: z.number(),
  next_attempt_at: isoTimestamp.nullable(),
  attempts: z.array(Attempt),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});
const DeliveryList = z.object({
  data: z.array(DeliveryRecord),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});

function toRecord(row: EndpointRow): z.infer<typeof WebhookRecord> {
  return {
    id: row.id,
    url: row.url,
    events: row.events as z.infer<typeof WebhookRecord>['events'],
    active: row.active,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toDeliveryRecord(
  d: DeliveryRow & { event: EventRow; attempts: AttemptRow[] },
): z.infer<typeof DeliveryRecord> {
  return {
    id: d.id,
    webhook_id: d.endpoint_id,
    event: toEventRecord(d.event),
    status: d.status,
    attempt_count: d.attempt_count,
    next_attempt_at: d.next_attempt_at,
    attempts: d.attempts.map(({ delivery_id: _, ...a }) => a),
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

export interface WebhookRouteDeps {
  queries: WebhookQueries;
  workflows: WebhookClient;
  limits: LimitQueries;
  policy: WebhookUrlPolicy;
  resolve?: Resolver;
}

/** Refuses a URL that is unsafe now: its shape, and (for a name) the addresses it resolves to today. */
async function checkUrl(url: string, deps: WebhookRouteDeps): Promise<void> {
  const refuse = (message: string) => new ValidationError(`Invalid body: url ${message}.`, [{ path: 'url', message }]);
  const problem = webhookUrlProblem(url, deps.policy);
  if (problem) throw refuse(problem);
  try {
    await Promise.race([
      resolveSafeAddress(new URL(url), deps.policy, deps.resolve ?? systemResolver),
      new Promise((_, reject) => setTimeout(() => reject(new Error('DNS timeout')), 5_000).unref()),
    ]);
  } catch (err) {
    if (err instanceof UnsafeDestinationError)
      throw refuse(`must not point at a non-public address (${err.message.replace(/^refused: /, '')})`);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') throw refuse('names a host that does not resolve');
    // Any other DNS trouble is not the client's fault: the URL is checked again at every attempt.
  }
}

export function registerWebhookRoutes(api: ApiRouter, deps: WebhookRouteDeps): void {
  const { queries } = deps;
  const mustFind = async (accountId: string, id: string) => {
    const row = await queries.findEndpoint(accountId, id);
    if (!row) throw new NotFoundError(`No webhook ${id}.`);
    return row;
  };

  api.add({
    method: 'post',
    path: '/v1/webhooks',
    tag: 'Webhooks',
    summary: 'Register a webhook endpoint (the signing secret is shown only in this response)',
    description:
      'url must be https (plain http only for hosts on the WEBHOOK_ALLOWED_HOSTS list) and must not resolve to a ' +
      'private, loopback, link-local, CGNAT, multicast or reserved address.',
    auth: true,
    body: CreateBody,
    responses: { 201: { description: 'The endpoint, with its secret', schema: WebhookWithSecret } },
    errors: [422],
    handler: async ({ body, accountId }) => {
      await checkUrl(body.url, deps);
      const secret = body.secret ?? generateWebhookSecret();
      const row = await deps.limits.createWithinLimits(
        accountId,
        [{ name: 'webhooks' }, { name: 'webhook_urls', url: body.url }],
        (tx) => queries.insertEndpoint(accountId, { url: body.url, events: body.events, secret }, tx),
      );
      return { status: 201, body: { ...toRecord(row), secret } };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/webhooks',
    tag: 'Webhooks',
    summary: "List the account's webhook endpoints, newest first (no secrets)",
    description: '`limit` (default 50, max 200) and `cursor` page.',
    auth: true,
    query: ListQuery,
    responses: { 200: { description: 'A page of endpoints', schema: pageOf(WebhookRecord) } },
    handler: async ({ query, accountId }) => {
      const page = await queries.listEndpoints(accountId, query);
      return { body: { ...page, data: page.data.map(toRecord) } };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/webhooks/{id}',
    tag: 'Webhooks',
    summary: 'One webhook endpoint (no secret)',
    auth: true,
    params: IdParams,
    responses: { 200: { description: 'The endpoint', schema: WebhookRecord } },
    handler: async ({ params, accountId }) => ({ body: toRecord(await mustFind(accountId, params.id)) }),
  });

  api.add({
    method: 'put',
    path: '/v1/webhooks/{id}',
    tag: 'Webhooks',
    summary: 'Update any of url, events, secret, active',
    description:
      'Deactivating stops deliveries waiting for a retry (they become `cancelled`); reactivating clears the failure ' +
      'streak.',
    auth: true,
    params: IdParams,
    body: UpdateBody,
    responses: {
      200: {
        description: 'The endpoint (with `secret` only when this request set it)',
        schema: WebhookRecord.extend({ secret: z.string().optional() }),
      },
    },
    errors: [422],
    handler: async ({ params, body, accountId }) => {
      await mustFind(accountId, params.id);
      const url = body.url;
      if (url !== undefined) await checkUrl(url, deps);
      // A new URL may be one distinct URL too many (webhook_urls); the check and the change share one lock.
      const row =
        url === undefined
          ? await queries.updateEndpoint(accountId, params.id, body)
          : await deps.limits.createWithinLimits(
              accountId,
              [{ name: 'webhook_urls', url, exceptEndpointId: params.id }],
              (tx) => queries.updateEndpoint(accountId, params.id, body, tx),
            );
      if (!row) throw new NotFoundError(`No webhook ${params.id}.`);
      if (body.active === false) {
        // The change is saved: waiting deliveries are cancelled at their next wake-up anyway; this wakes them now.
        const waiting = await queries.listPendingDeliveryIds(accountId, params.id);
        await deps.workflows.notifyEndpointChanged(waiting).catch(() => undefined);
      }
      return { body: { ...toRecord(row), ...(body.secret ? { secret: body.secret } : {}) } };
    },
  });

  api.add({
    method: 'delete',
    path: '/v1/webhooks/{id}',
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint (its pending retries stop; its delivery log goes with it)',
    auth: true,
    params: IdParams,
    responses: { 200: { description: 'Deleted', schema: Deleted } },
    handler: async ({ params, accountId }) => {
      const waiting = await queries.listPendingDeliveryIds(accountId, params.id);
      if (!(await queries.deleteEndpoint(accountId, params.id))) throw new NotFoundError(`No webhook ${params.id}.`);
      // The deletion alone already stops them (an attempt finds no endpoint); this only ends their wait early.
      await deps.workflows.notifyEndpointChanged(waiting).catch(() => undefined);
      return { body: { id: params.id, deleted: true } };
    },
  });

  api.add({
    method: 'post',
    path: '/v1/webhooks/{id}/test',
    tag: 'Webhooks',
    summary: 'Send a `webhook.test` event to this endpoint (whatever it subscribes to)',
    auth: true,
    params: IdParams,
    responses: { 202: { description: 'The test event, queued for delivery', schema: EventRecord } },
    errors: [422],
    handler: async ({ params, accountId }) => {
      const endpoint = await mustFind(accountId, params.id);
      if (!endpoint.active)
        throw new UnsupportedOperationError('This webhook is inactive; activate it with PUT {"active": true} first.');
      return { status: 202, body: toEventRecord(await queries.insertTestEvent(accountId, params.id)) };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries',
    tag: 'Webhooks',
    summary: 'The delivery log: each delivery with its event, status and every attempt, newest first',
    auth: true,
    params: IdParams,
    query: DeliveriesQuery,
    responses: { 200: { description: 'A page of deliveries', schema: DeliveryList } },
    handler: async ({ params, query, accountId }) => {
      await mustFind(accountId, params.id);
      const p = await queries.listDeliveries(accountId, params.id, query);
      return { body: { data: p.data.map(toDeliveryRecord), has_more: p.has_more, next_cursor: p.next_cursor } };
    },
  });

  api.add({
    method: 'post',
    path: '/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
    tag: 'Webhooks',
    summary: 'Redeliver now, with the same webhook-id',
    description:
      'A delivery waiting for a retry is attempted now (and keeps its schedule if this fails); a finished one ' +
      '(succeeded, failed, cancelled) gets exactly one more attempt. The attempt appears in the delivery log.',
    auth: true,
    params: DeliveryParams,
    responses: {
      202: {
        description: 'Accepted; the delivery as it is now',
        schema: z.object({ id: z.string(), status: DeliveryStatus, attempt_count: z.number() }),
      },
    },
    errors: [422, 503],
    handler: async ({ params, accountId }) => {
      const endpoint = await mustFind(accountId, params.id);
      const delivery = await queries.findDelivery(accountId, params.id, params.delivery_id);
      if (!delivery) throw new NotFoundError(`No delivery ${params.delivery_id} for webhook ${params.id}.`);
      if (!endpoint.active)
        throw new UnsupportedOperationError('This webhook is inactive; activate it with PUT {"active": true} first.');
      await deps.workflows.retryDelivery(delivery.id);
      return { status: 202, body: { id: delivery.id, status: delivery.status, attempt_count: delivery.attempt_count } };
    },
  });
}
