/**
 * A launch's own rows: the intent written before the provider is asked, the counted asks to create, what the
 * provider created, and the key that created it.
 */
import type { LaunchIntent } from './admission';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { ProviderInstance } from '../../providers/types';
import { LIVE_INSTANCE_STATUSES, limitReachedMessage } from '../../domain/limits';
import { LimitReachedError } from '../../errors';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { INSTANCE_COLUMNS as COLUMNS, InstanceRow, micros } from './instance-row';

/** The launch's intent: what the request asked for (the same record admission reserves). */
type IntentInput = LaunchIntent;

/**
 * What a failed earlier run of the same launch leaves behind and a restart must not inherit (its instance, if
 * any, was terminated): its old provider id above all, or the new run would be told that instance is gone.
 */
const RESET_ON_RESTART = [
  'provider_instance_id',
  'provider_status',
  'public_ip',
  'ssh',
  'ended_at',
  'end_reason',
  'lifecycle_warning',
  'price_per_hour_micros',
  'started_at',
  'metered_through',
  'provider_key_fingerprint',
  'key_warning',
  'accepted_at',
] as const;
const resetWhenFailed = sql.join(
  RESET_ON_RESTART.map(
    (c) =>
      sql.fragment`${sql.identifier([c])} = CASE WHEN instances.status = 'failed' THEN NULL
        ELSE ${sql.identifier(['instances', c])} END`,
  ),
  sql.fragment`, `,
);

function upsertIntent(conn: CommonQueryMethods, input: IntentInput): Promise<InstanceRow> {
  return conn.one(sql.type(InstanceRow)`
    INSERT INTO instances (id, account_id, request_hash, provider, provider_name, name, status, gpu_type, gpu_count,
      spot,
      region, docker_image, warnings, api_key_id, idle_stop)
    VALUES (${input.id}, ${input.accountId}, ${input.requestHash}, ${input.provider}, ${input.providerName},
      ${input.name},
      'provisioning', ${input.gpuType}, ${input.gpuCount}, ${input.spot}, ${input.region}, ${input.dockerImage},
      ${sql.jsonb(input.warnings)}, ${input.apiKeyId ?? null},
        ${input.idleStop ? sql.jsonb({ ...input.idleStop }) : null})
    ON CONFLICT (id) DO UPDATE SET
      -- A failed earlier run left nothing running: start over clean (RESET_ON_RESTART).
      status = CASE WHEN instances.status = 'failed' THEN 'provisioning' ELSE instances.status END,
      ${resetWhenFailed},
      -- Admission's reservation (admit_launch) does not know the rule: until the provider create, the intent's is it.
      idle_stop = CASE WHEN instances.status = 'failed' OR instances.provider_instance_id IS NULL
        THEN excluded.idle_stop ELSE instances.idle_stop END,
      updated_at = now()
    RETURNING ${COLUMNS}`);
}

export function createInstanceLaunchQueries(pool: Pool) {
  return {
    /**
     * The launch's intent, written before the provider is asked to create anything: the row, in
     * `provisioning`, with the name the instance will carry at the provider. A retried launch of the same id
     * finds its row; one whose earlier run failed (nothing of it left running) starts over as `provisioning`.
     * With `maxLive`, a new (or restarted) launch first takes the account row's lock and counts the account's
     * live instances: at `maxLive` it throws {@link LimitReachedError} and writes nothing; two concurrent
     * launches at `maxLive − 1` serialize on the lock, so only one passes.
     */
    async insertIntent(input: IntentInput & { maxLive?: number }): Promise<InstanceRow> {
      const { maxLive } = input;
      if (maxLive === undefined) return upsertIntent(pool, input);
      // Admission (API launches and scheduled runs) has normally written the row already: then this is what the
      // upsert would do to a live row (touch it), in one statement, without the account's lock and count.
      // Admission's reservation does not know the idle-stop rule: until the provider create, the intent's is it.
      const admitted = await pool.maybeOne(sql.type(InstanceRow)`
        UPDATE instances SET updated_at = now(),
          idle_stop = CASE WHEN provider_instance_id IS NULL
            THEN ${input.idleStop ? sql.jsonb({ ...input.idleStop }) : null}::jsonb ELSE idle_stop END
        WHERE id = ${input.id} AND status <> 'failed' RETURNING ${COLUMNS}`);
      if (admitted) return admitted;
      return pool.transaction(async (tx) => {
        await tx.query(sql.typeAlias('void')`SELECT FROM accounts WHERE id = ${input.accountId} FOR NO KEY UPDATE`);
        const { live, replay } = await tx.one(sql.type(z.object({ live: z.number(), replay: z.boolean() }))`
          SELECT
            (SELECT count(*) FROM instances WHERE account_id = ${input.accountId} AND id <> ${input.id}
               AND status = ANY(${sql.array([...LIVE_INSTANCE_STATUSES], 'text')}))::int4 AS live,
            EXISTS (SELECT 1 FROM instances WHERE id = ${input.id} AND status <> 'failed') AS replay`);
        // A replay of a launch that already holds its place is never refused.
        if (!replay && live >= maxLive)
          throw new LimitReachedError('live_instances', maxLive, limitReachedMessage('live_instances', maxLive));
        return upsertIntent(tx, input);
      });
    },

    /**
     * Counts an ask to create, committed before the ask is sent: 1 means no earlier ask can have created
     * anything, so the create needs no look for an earlier instance first.
     */
    async countCreateAttempt(id: string): Promise<number> {
      return pool.oneFirst(sql.type(z.object({ create_attempts: z.number() }))`
        UPDATE instances SET create_attempts = create_attempts + 1 WHERE id = ${id} RETURNING create_attempts`);
    },

    /** Asks to create counted for this row (null: no row): unlike the engine's attempt number, it survives workers. */
    async countedCreateAttempts(id: string): Promise<number | null> {
      return pool.maybeOneFirst(
        sql.type(z.object({ create_attempts: z.number() }))`SELECT create_attempts FROM instances WHERE id = ${id}`,
      );
    },
    /**
     * The connected key saw these instances at the provider (same provider account): its "not found" counts
     * from now on, and any key warning is cleared. Writes only rows that differ.
     */
    async bindCreatingKey(ids: readonly string[], keyFingerprint: string): Promise<void> {
      if (!ids.length) return;
      await pool.query(sql.typeAlias('void')`
        UPDATE instances SET provider_key_fingerprint = ${keyFingerprint}, key_warning = NULL, updated_at = now()
        WHERE id = ANY(${sql.array([...ids], 'text')})
          AND (provider_key_fingerprint IS DISTINCT FROM ${keyFingerprint} OR key_warning IS NOT NULL)`);
    },

    /** Says (once) that the connected key is not the one that created the instance; see `keyMismatchWarning`. */
    async setKeyWarning(id: string, warning: string): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE instances SET key_warning = ${warning}, updated_at = now() WHERE id = ${id} AND key_warning IS DISTINCT
          FROM ${warning}`);
    },

    /**
     * Records what the provider created for the launch. The price is fixed here, from the provider's own quote
     * at create, and meters the instance for its whole life; `keyFingerprint` names the key that created it.
     */
    async recordCreated(id: string, i: ProviderInstance, keyFingerprint?: string): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET provider_instance_id = ${i.id}, status = ${i.status},
          provider_status = ${i.providerStatus},
          price_per_hour_micros = coalesce(price_per_hour_micros, ${micros(i.pricePerHour)}),
          accepted_at = coalesce(accepted_at, now()),
          provider_key_fingerprint = coalesce(${keyFingerprint ?? null}, provider_key_fingerprint),
          region = coalesce(${i.region}, region), docker_image = coalesce(docker_image, ${i.dockerImage}),
          public_ip = ${i.publicIp}, ssh = ${i.ssh ? sql.jsonb(i.ssh) : null}, updated_at = now()
        WHERE id = ${id} RETURNING ${COLUMNS}`);
    },
  };
}
