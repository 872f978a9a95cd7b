/**
 * `/v1/api-keys`: keys as a resource (beyond the spec). A key is shown once, at creation; afterwards only its
 * prefix. A key never grants more than it holds: its scopes, its spend cap and its expiry bound every key it
 * makes. Revocation is immediate: authentication reads the key on every request.
 */
import { z } from 'zod';
import type { ApiKeyQueries, ApiKeyRow } from '../../db/queries/api-keys';
import type { LimitQueries } from '../../db/queries/limits';
import { missingScopes, SCOPES } from '../../domain/api-key-scopes';
import { dollarsToMicros, microsToDollars } from '../../domain/money';
import { ForbiddenError, NotFoundError } from '../../errors';
import type { ApiRouter } from '../route';
import { isoTimestamp } from '../schemas';
import { pathId, text } from '../text';

const SpendLimit = z
  .object({
    amount: z
      .number()
      .gt(0, 'must be greater than 0')
      .max(1_000_000, 'must be at most 1000000')
      .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, 'at most two decimals')
      .describe('dollars per period'),
    period: z.enum(['day', 'month']).describe('UTC calendar day or month'),
  })
  .strict();

const CreateApiKeyBody = z
  .object({
    name: text({ max: 100 }),
    scopes: z
      .array(z.enum(SCOPES, { errorMap: () => ({ message: `must be one of ${SCOPES.join(', ')}` }) }))
      .min(1)
      .max(SCOPES.length)
      .refine((s) => new Set(s).size === s.length, 'each scope once')
      .describe('read: every GET; <family>:write: POST/PUT/DELETE of that family; keys:admin: /v1/api-keys'),
    spend_limit: SpendLimit.optional().describe(
      "launches and scheduled runs are admitted only while the key's spend in the period plus the next hour of its " +
        'live instances fits; at the cap its instances are ended',
    ),
    expires_at: z
      .string()
      .datetime({ offset: true, message: 'must be an ISO 8601 timestamp' })
      .refine((t) => Date.parse(t) > Date.now(), 'must be in the future')
      .optional(),
  })
  .strict();

export const ApiKeyRecord = z.object({
  id: z.string(),
  name: z.string(),
  key_prefix: z.string().describe('the first characters of the key, to recognise it'),
  scopes: z.array(z.enum(SCOPES)),
  spend_limit: SpendLimit.nullable(),
  spend_in_period: z
    .number()
    .nullable()
    .describe(
      'dollars charged in the current period to the instances of the key and of the keys made under it ' +
        '(null without a cap)',
    ),
  last_used_at: isoTimestamp.nullable().describe('to the minute'),
  expires_at: isoTimestamp.nullable(),
  created_at: isoTimestamp,
});
type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

function toApiKeyRecord(row: ApiKeyRow, spendMicros: number | null): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: row.scopes.filter((s): s is (typeof SCOPES)[number] => (SCOPES as readonly string[]).includes(s)),
    spend_limit:
      row.spend_limit_micros === null || row.spend_limit_period === null
        ? null
        : { amount: microsToDollars(row.spend_limit_micros), period: row.spend_limit_period },
    spend_in_period: spendMicros === null ? null : microsToDollars(spendMicros),
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.expires_at),
    created_at: iso(row.created_at)!,
  };
}

/**
 * Refuses a new key that would hold more than the key making it: scopes, spend cap (no more than what the caps
 * over the maker leave this period: `room`), expiry.
 */
function assertWithinCreator(
  creator: ApiKeyRow,
  body: z.infer<typeof CreateApiKeyBody>,
  room: { name: string; roomMicros: number } | null,
): void {
  const missing = missingScopes(creator.scopes, body.scopes);
  if (missing.length) {
    throw new ForbiddenError(
      `A key cannot grant scopes it does not hold: this key lacks ${missing.map((s) => `"${s}"`).join(', ')}.`,
    );
  }
  if (creator.spend_limit_micros !== null) {
    const limit = body.spend_limit;
    if (
      !limit ||
      limit.period !== creator.spend_limit_period ||
      dollarsToMicros(limit.amount) > creator.spend_limit_micros
    ) {
      throw new ForbiddenError(
        `This key is capped at $${microsToDollars(creator.spend_limit_micros).toFixed(2)} per ` +
          `${creator.spend_limit_period}; ` +
          `a key it makes needs a spend_limit per ${creator.spend_limit_period} of at most that.`,
      );
    }
  }
  if (room && body.spend_limit && dollarsToMicros(body.spend_limit.amount) > room.roomMicros) {
    // A family shares its caps: a child's cap beyond what is left would only promise what cannot be spent.
    throw new ForbiddenError(
      `The API key "${room.name}" has $${microsToDollars(Math.max(0, room.roomMicros)).toFixed(2)} of its cap left ` +
        `this ${creator.spend_limit_period ?? 'period'} (spent and committed by it and the keys made under it); ` +
        'a key made under it needs a spend_limit of at most that.',
    );
  }
  if (
    creator.expires_at !== null &&
    body.expires_at !== undefined &&
    Date.parse(body.expires_at) > Date.parse(creator.expires_at)
  ) {
    throw new ForbiddenError(`This key expires at ${iso(creator.expires_at)}; a key it makes cannot outlive it.`);
  }
}

export function registerApiKeyRoutes(
  api: ApiRouter,
  deps: { keys: ApiKeyQueries; limits?: Pick<LimitQueries, 'assertWithinLimits'> },
): void {
  const withSpend = async (row: ApiKeyRow) =>
    toApiKeyRecord(row, row.spend_limit_micros === null ? null : (await deps.keys.spendInPeriod(row)).chargedMicros);

  api.add({
    method: 'post',
    path: '/v1/api-keys',
    tag: 'API keys',
    summary: 'Create an API key (shown once)',
    description:
      'The new key holds at most what the key making it holds: its scopes, its spend cap (same period, ' +
      'no more) and its expiry.',
    auth: true,
    body: CreateApiKeyBody,
    responses: {
      201: {
        description: 'The key record, with `api_key` (shown only now)',
        schema: ApiKeyRecord.extend({ api_key: z.string() }),
      },
    },
    handler: async ({ body, accountId, apiKey }) => {
      assertWithinCreator(apiKey, body, await deps.keys.capRoom(apiKey));
      const expiresAt = body.expires_at ?? apiKey.expires_at ?? undefined;
      const created = await deps.keys.insertApiKey(
        accountId,
        {
          maker: apiKey,
          name: body.name,
          scopes: body.scopes,
          spendLimit: body.spend_limit
            ? { micros: dollarsToMicros(body.spend_limit.amount), period: body.spend_limit.period }
            : undefined,
          expiresAt: expiresAt ? new Date(expiresAt).toISOString() : undefined,
        },
        deps.limits ? (tx) => deps.limits!.assertWithinLimits(tx, accountId, [{ name: 'api_keys' }]) : undefined,
      );
      return {
        status: 201,
        body: {
          ...toApiKeyRecord(created.row, created.row.spend_limit_micros === null ? null : 0),
          api_key: created.apiKey,
        },
      };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/api-keys',
    tag: 'API keys',
    summary: "The account's live API keys (never the secret)",
    auth: true,
    responses: { 200: { description: 'Keys, newest first', schema: z.object({ data: z.array(ApiKeyRecord) }) } },
    handler: async ({ accountId }) => {
      const keys = await deps.keys.listApiKeys(accountId);
      // One statement for every capped key's spend, not one per key.
      const spend = await deps.keys.spendInPeriodByKey(
        accountId,
        keys.filter((k) => k.spend_limit_micros !== null).map((k) => k.id),
      );
      return {
        body: {
          data: keys.map((k) =>
            toApiKeyRecord(k, k.spend_limit_micros === null ? null : (spend.get(k.id)?.chargedMicros ?? 0)),
          ),
        },
      };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/api-keys/current',
    tag: 'API keys',
    summary: 'The key making this request: its scopes, cap and spend (what a client may offer its user)',
    auth: true,
    responses: { 200: { description: 'The calling key (never the secret)', schema: ApiKeyRecord } },
    handler: async ({ apiKey }) => ({ body: await withSpend(apiKey) }),
  });

  api.add({
    method: 'delete',
    path: '/v1/api-keys/{id}',
    tag: 'API keys',
    summary: 'Revoke an API key (its next request is 401)',
    auth: true,
    params: z.object({ id: pathId(64) }).strict(),
    responses: { 200: { description: 'The revoked key', schema: ApiKeyRecord.extend({ revoked: z.literal(true) }) } },
    handler: async ({ params, accountId }) => {
      const row = await deps.keys.revokeApiKey(accountId, params.id);
      if (!row) throw new NotFoundError(`No live API key ${params.id} in this account.`);
      return { body: { ...toApiKeyRecord(row, null), revoked: true as const } };
    },
  });
}
