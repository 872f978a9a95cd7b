import { z } from 'zod';
import {
  ALERT_STATUSES,
  AlertRecord,
  decodeAlertCursor,
  toAlertRecord,
  type AlertQueries,
  type AlertWithValue,
  type NewAlert,
} from '../../db/queries/alerts';
import type { LimitQueries } from '../../db/queries/limits';
import { dollarsToMicros } from '../../domain/money';
import { gpuTypeField } from '../launch-schemas';
import { NotFoundError } from '../../errors';
import type { ApiRouter } from '../route';
import { Deleted } from '../schemas';

/** Dollars with at least one micro-dollar and a sane ceiling, so every threshold is stored exactly. */
const dollars = (max: number) =>
  z
    .number()
    .gt(0, 'must be greater than 0')
    .max(max, `must be at most ${max}`)
    // Runs even when the bounds above failed: no conversion that could throw on a huge number.
    .refine((v) => Math.round(v * 1_000_000) >= 1, 'must be at least 0.000001');

const PriceDropBody = z
  .object({
    type: z.literal('price_drop'),
    action: z.enum(['notify']).default('notify').describe('price_drop alerts only notify'),
    gpu_type: gpuTypeField,
    threshold_price: dollars(10_000).describe(
      'triggers when the lowest available offer is at or below this, dollars per GPU per hour',
    ),
  })
  .strict();

const BudgetLimitBody = z
  .object({
    type: z.literal('budget_limit'),
    action: z
      .enum(['notify', 'stop_instances'])
      .default('notify')
      .describe("stop_instances also stops (runpod) or terminates the account's running instances"),
    threshold_dollars: dollars(100_000_000).describe(
      'triggers when the instance charges of the current UTC month reach this, dollars',
    ),
  })
  .strict();

const CreateAlertBody = z.discriminatedUnion('type', [PriceDropBody, BudgetLimitBody]);

const AlertList = z.object({
  data: z.array(AlertRecord),
  has_more: z.boolean(),
  next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
});

const ListAlertsQuery = z
  .object({
    status: z.enum(ALERT_STATUSES).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z
      .string()
      .refine(
        (c) => decodeAlertCursor(c) !== null,
        'is not a cursor from this list; pass next_cursor from the previous page',
      )
      .optional(),
  })
  .strict();

const IdParams = z
  .object({
    id: z
      .string()
      .min(1)
      .max(100)
      // eslint-disable-next-line no-control-regex -- the point: control characters never reach Postgres
      .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters'),
  })
  .strict();

const record = (row: AlertWithValue) => toAlertRecord(row, row.current_value_micros);

export function registerAlertRoutes(api: ApiRouter, deps: { alerts: AlertQueries; limits: LimitQueries }): void {
  api.add({
    method: 'post',
    path: '/v1/alerts',
    tag: 'Alerts',
    summary: 'Create a price-drop or budget alert',
    description:
      'An alert moves `active → triggered` once: a `price_drop` when the lowest available offer for its GPU is at or ' +
      'below ' +
      '`threshold_price` (checked as every pricing refresh lands), ' +
      "a `budget_limit` when the account's instance charges in " +
      'the current UTC month reach `threshold_dollars` (checked as charges land). The move emits `alert.triggered`. ' +
      'Fields of the other type are refused.',
    auth: true,
    body: CreateAlertBody,
    responses: { 201: { description: 'The created alert', schema: AlertRecord } },
    errors: [422],
    handler: async ({ body, accountId }) => {
      const alert: NewAlert =
        body.type === 'price_drop'
          ? {
              type: 'price_drop',
              action: body.action,
              gpuType: body.gpu_type,
              thresholdMicros: dollarsToMicros(body.threshold_price),
            }
          : { type: 'budget_limit', action: body.action, thresholdMicros: dollarsToMicros(body.threshold_dollars) };
      const row = await deps.limits.createWithinLimits(accountId, [{ name: 'alerts' }], (tx) =>
        deps.alerts.insertAlert(accountId, alert, tx),
      );
      const created = await deps.alerts.findAlert(accountId, row.id);
      return { status: 201, body: record(created!) };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/alerts',
    tag: 'Alerts',
    summary: 'List alerts (active and triggered), newest first',
    description: '`status` filters; `limit` (default 50, max 200) and `cursor` page.',
    auth: true,
    query: ListAlertsQuery,
    responses: { 200: { description: 'A page of alerts', schema: AlertList } },
    handler: async ({ query, accountId }) => {
      const page = await deps.alerts.listAlerts(accountId, query);
      return { body: { data: page.alerts.map(record), has_more: page.has_more, next_cursor: page.next_cursor } };
    },
  });

  api.add({
    method: 'delete',
    path: '/v1/alerts/{id}',
    tag: 'Alerts',
    summary: 'Delete an alert (it never triggers afterwards)',
    auth: true,
    params: IdParams,
    responses: { 200: { description: 'Deleted', schema: Deleted } },
    handler: async ({ params, accountId }) => {
      if (!(await deps.alerts.deleteAlert(accountId, params.id))) throw new NotFoundError(`No alert ${params.id}.`);
      return { body: { id: params.id, deleted: true } };
    },
  });
}
