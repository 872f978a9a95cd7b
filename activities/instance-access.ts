/**
 * One instance at its provider, asked with the account's key: heartbeats while the call runs, provider errors
 * become activity failures, and the creating-key checks keep a key from another provider account from losing
 * or ending an instance it cannot see.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { InstanceRow } from '../src/db/queries/instances';
import type { ProviderId, ProviderInstance } from '../src/providers/types';
import { keyMayEnd, keyMismatchWarning, providerKeyFingerprint } from '../src/domain/provider-key-fingerprint';
import type { ActivityDeps } from './deps';
import { toActivityFailure } from './provider-failures';

/**
 * Heartbeats every second while a provider call runs (regular activities only), so Temporal notices a lost
 * worker within the heartbeat timeout instead of the whole start-to-close timeout.
 */
async function heartbeating<T>(fn: () => Promise<T>): Promise<T> {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return fn(); // called outside an activity (tests)
  }
  if (ctx.info.isLocal) return fn();
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), 1000);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

export function createInstanceAccess(deps: ActivityDeps) {
  const { instances } = deps.queries;

  /** Calls the provider with the account's key; `fingerprint` names that key (see `providerKeyFingerprint`). */
  async function withProvider<T>(
    accountId: string,
    provider: ProviderId,
    fn: (apiKey: string, fingerprint: string) => Promise<T>,
    key?: Promise<string | null>,
  ): Promise<T> {
    const apiKey = await (key ?? deps.credentials.findApiKey(accountId, provider));
    if (apiKey === null) {
      throw ApplicationFailure.nonRetryable(
        `No ${provider} API key is connected to this account.`,
        'provider_not_connected',
      );
    }
    try {
      return await heartbeating(() => fn(apiKey, providerKeyFingerprint(provider, apiKey)));
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  /**
   * The provider's view of `row` with the connected key. Seen: the key belongs to the instance's provider
   * account and is bound to it. Not found by a key that did not create it: the record says so and the look
   * fails (retryable later), because that answer says nothing about the instance.
   */
  async function lookAsCreatingKey(
    row: InstanceRow,
    apiKey: string,
    fingerprint: string,
  ): Promise<ProviderInstance | null> {
    const instance = await deps.adapters[row.provider].getInstance(apiKey, row.provider_instance_id!);
    if (instance) {
      if (row.provider_key_fingerprint !== fingerprint || row.key_warning)
        await instances.bindCreatingKey([row.id], fingerprint);
      return instance;
    }
    if (keyMayEnd(row, fingerprint)) return null;
    const warning = keyMismatchWarning(row.provider);
    await instances.setKeyWarning(row.id, warning);
    deps.logger.warn('provider key mismatch: a not-found from a key that did not create the instance is ignored', {
      instanceId: row.id,
      provider: row.provider,
    });
    throw ApplicationFailure.nonRetryable(warning, 'provider_key_mismatch');
  }

  /**
   * Before a stop or terminate with a key that did not create the instance: that key must see it. A record
   * warned about another key looks once too, so the warning goes when the right key is back.
   */
  async function assertKeyCanEnd(row: InstanceRow, apiKey: string, fingerprint: string): Promise<void> {
    if (row.provider_key_fingerprint === null || (row.provider_key_fingerprint === fingerprint && !row.key_warning))
      return;
    await lookAsCreatingKey(row, apiKey, fingerprint);
  }

  async function rowOf(id: string): Promise<InstanceRow> {
    const row = await instances.findById(id);
    if (!row) throw ApplicationFailure.nonRetryable(`instance ${id} has no row`, 'instance_missing');
    return row;
  }

  return { withProvider, lookAsCreatingKey, assertKeyCanEnd, rowOf };
}
