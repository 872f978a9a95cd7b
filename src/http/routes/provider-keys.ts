import { z } from 'zod';
import { PROVIDER_KEY_STATUSES, type ProviderKeyQueries } from '../../db/queries/provider-keys';
import { keyHint } from '../../domain/key-vault';
import type { InstanceQueries } from '../../db/queries/instances';
import { ApiError, ConflictError, NotFoundError, ProviderRequestError } from '../../errors';
import { PROVIDER_NAMES, type ProviderAdapter, type ProviderId } from '../../providers/types';
import type { ProviderCredentials } from '../../providers/provider-credentials';
import type { ApiRouter } from '../route';
import { isoTimestamp } from '../schemas';
import { asciiSecret, text } from '../text';
import { providerId } from '../launch-schemas';
import { providerKeyFingerprint } from '../../domain/provider-key-fingerprint';

/** A key the provider rejected when it was connected: nothing is stored. */
class KeyRejectedError extends ApiError {
  constructor(providerReason: string) {
    super(422, 'provider_error', `${providerReason.replace(/\.?$/, '.')} Nothing was saved.`);
  }
}

export const ProviderKeyRecord = z.object({
  provider: providerId,
  display_label: z.string(),
  key_hint: z.string().describe('the last characters of the key, e.g. "…abcd"; the key itself is never returned'),
  status: z.enum(PROVIDER_KEY_STATUSES),
  last_verified_at: isoTimestamp.nullable(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});

const ConnectBody = z
  .object({
    provider: providerId,
    api_key: asciiSecret({ max: 512 }),
    display_label: text({ max: 100, trim: true }).optional(),
  })
  .strict();

const ProviderParams = z.object({ provider: providerId }).strict();

const VerifyResult = z.object({
  provider: providerId,
  valid: z.boolean(),
  status: z.enum(PROVIDER_KEY_STATUSES),
  message: z.string(),
  checked_at: isoTimestamp,
});

export function registerProviderKeyRoutes(
  api: ApiRouter,
  deps: {
    queries: ProviderKeyQueries;
    credentials: ProviderCredentials;
    adapters: Record<ProviderId, ProviderAdapter>;
    instances: Pick<InstanceQueries, 'listLive' | 'bindCreatingKey'>;
  },
): void {
  /**
   * A replacement key must see every live managed instance of that provider: the instances are stopped,
   * terminated and watched with it, and a key of another provider account would call them "not found".
   * Resolves with the row ids of those instances (all seen by the key).
   */
  async function assertKeySeesLiveInstances(
    accountId: string,
    provider: ProviderId,
    apiKey: string,
  ): Promise<string[]> {
    const live = (await deps.instances.listLive(accountId, provider)).filter((r) => r.provider_instance_id);
    if (!live.length) return [];
    let listed: Awaited<ReturnType<ProviderAdapter['listInstances']>>;
    let rejected = false;
    try {
      listed = await deps.adapters[provider].listInstances(apiKey);
    } catch (err) {
      // A key the provider refuses sees nothing: the same refusal as a key of another account (409, not 502).
      if (!(err instanceof ProviderRequestError) || err.kind !== 'invalid_key') throw err;
      listed = [];
      rejected = true;
    }
    const visible = new Set(listed.filter((i) => i.status !== 'terminated').map((i) => i.id));
    const unseen = live.map((r) => r.provider_instance_id!).filter((id) => !visible.has(id));
    if (!unseen.length) return live.map((r) => r.id);
    throw new ConflictError(
      `The new ${provider} key ${
        rejected ? `was rejected by ${PROVIDER_NAMES[provider]}, so it cannot see` : 'cannot see'
      } managed instances that are still live ` +
        `(${unseen.slice(0, 10).join(', ')}${unseen.length > 10 ? ', …' : ''}); ` +
        'it must belong to the provider account they run in, ' +
        'or terminate them first (POST /v1/compute/{id}/terminate).',
      unseen.map((id) => ({
        path: 'instances',
        message: 'live managed instance the new key cannot see',
        instance_id: id,
      })),
    );
  }

  /**
   * The provider's word on a key being connected: valid or rejected (with its reason), or null when the provider
   * cannot be reached now (the key is then saved `unverified`, as the verify route can check it later).
   */
  async function verifyOnConnect(
    provider: ProviderId,
    apiKey: string,
  ): Promise<{ valid: boolean; message: string; at: Date } | null> {
    try {
      const check = await deps.adapters[provider].verifyKey(apiKey);
      return { ...check, at: new Date() };
    } catch (err) {
      if (err instanceof ProviderRequestError) return null;
      throw err;
    }
  }

  api.add({
    method: 'get',
    path: '/v1/settings/providers',
    tag: 'Provider keys',
    summary: 'List connected provider keys (never the keys themselves)',
    auth: true,
    responses: { 200: { description: 'Connected keys', schema: z.object({ data: z.array(ProviderKeyRecord) }) } },
    handler: async ({ accountId }) => ({ body: { data: await deps.queries.listProviderKeys(accountId) } }),
  });

  api.add({
    method: 'post',
    path: '/v1/settings/providers',
    tag: 'Provider keys',
    summary: "Connect (or replace) the account's key for a provider",
    description:
      'One key per provider: 201 when new, 200 when it replaced the previous key. The key is verified with the ' +
      'provider first: one it rejects is refused 422 `provider_error` with its reason and nothing is stored; one it ' +
      'accepts is saved `valid` with `last_verified_at`; when the provider cannot be reached it is saved ' +
      '`unverified`. A replacement must see every live managed instance of that provider (409 naming those it cannot ' +
      'see).',
    auth: true,
    body: ConnectBody,
    responses: {
      201: { description: 'Connected', schema: ProviderKeyRecord },
      200: { description: 'Replaced', schema: ProviderKeyRecord },
    },
    errors: [409, 422, 502, 503],
    handler: async ({ body, accountId }) => {
      const check = await verifyOnConnect(body.provider, body.api_key);
      if (check && !check.valid) throw new KeyRejectedError(check.message);
      const seen = await assertKeySeesLiveInstances(accountId, body.provider, body.api_key);
      const { record: saved, created } = await deps.queries.upsertProviderKey(accountId, {
        provider: body.provider,
        displayLabel: body.display_label ?? PROVIDER_NAMES[body.provider],
        keyHint: keyHint(body.api_key),
        sealed: deps.credentials.seal(accountId, body.api_key),
      });
      // The new key sees them (same provider account): its "not found" may end them from now on, even one that
      // ends before the observer's next look with it (docs/spend-control.md, "The creating key").
      await deps.instances.bindCreatingKey(seen, providerKeyFingerprint(body.provider, body.api_key));
      const record = check
        ? ((await deps.queries.recordVerification(accountId, body.provider, true, check.at)) ?? saved)
        : saved;
      return { status: created ? 201 : 200, body: record };
    },
  });

  api.add({
    method: 'post',
    path: '/v1/settings/providers/{provider}/verify',
    tag: 'Provider keys',
    summary: 'Check the saved key against the provider',
    description:
      'Calls a cheap authenticated provider endpoint. 200 also when the key is invalid; 503 when the provider cannot ' +
      'be reached.',
    auth: true,
    params: ProviderParams,
    responses: { 200: { description: 'The verification outcome', schema: VerifyResult } },
    errors: [429, 503],
    handler: async ({ params, accountId }) => {
      const apiKey = await deps.credentials.findApiKey(accountId, params.provider);
      if (apiKey === null) throw new NotFoundError(`No ${params.provider} key is connected to this account.`);
      const check = await deps.adapters[params.provider].verifyKey(apiKey);
      const checkedAt = new Date();
      const record = await deps.queries.recordVerification(accountId, params.provider, check.valid, checkedAt);
      if (!record) throw new NotFoundError(`No ${params.provider} key is connected to this account.`);
      return {
        body: {
          provider: params.provider,
          valid: check.valid,
          status: record.status,
          message: check.message,
          checked_at: checkedAt.toISOString(),
        },
      };
    },
  });

  api.add({
    method: 'delete',
    path: '/v1/settings/providers/{provider}',
    tag: 'Provider keys',
    summary: 'Disconnect a provider key (the stored ciphertext is deleted)',
    auth: true,
    params: ProviderParams,
    responses: { 200: { description: 'Disconnected', schema: z.object({ id: providerId, deleted: z.literal(true) }) } },
    errors: [409],
    handler: async ({ params, accountId }) => {
      // Instances we manage need the key to be stopped, terminated and watched: disconnecting it under them
      // would leave them running unmanaged.
      const live = (await deps.instances.listLive(accountId, params.provider)).filter((r) => r.provider_instance_id);
      if (live.length) {
        const ids = live.map((r) => r.provider_instance_id!);
        throw new ConflictError(
          `Managed ${params.provider} instances are still live (${ids.slice(0, 10).join(', ')}${
            ids.length > 10 ? ', …' : ''
          }); ` + 'terminate them first (POST /v1/compute/{id}/terminate).',
          ids.map((id) => ({ path: 'instances', message: 'live managed instance', instance_id: id })),
        );
      }
      if (!(await deps.queries.deleteProviderKey(accountId, params.provider))) {
        throw new NotFoundError(`No ${params.provider} key is connected to this account.`);
      }
      return { body: { id: params.provider, deleted: true } };
    },
  });
}
