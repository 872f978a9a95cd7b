import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { chargeForElapsed } from '../../domain/money';
import { newId } from '../../domain/ids';
import type { InstanceStatus, ProviderInstance } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { createLedgerQueries } from './ledger';

export const InstanceRow = z.object({
  id: z.string(),
  account_id: z.string(),
  request_hash: z.string(),
  provider: z.enum(['runpod', 'vastai', 'lambda']),
  provider_instance_id: z.string().nullable(),
  name: z.string(),
  status: z.enum(['provisioning', 'running', 'stopping', 'stopped', 'terminating', 'terminated', 'failed', 'unknown']),
  provider_status: z.string().nullable(),
  gpu_type: z.string(),
  gpu_count: z.number(),
  price_per_hour_micros: z.number().nullable(),
  spot: z.boolean(),
  region: z.string().nullable(),
  docker_image: z.string().nullable(),
  public_ip: z.string().nullable(),
  ssh: z.object({ host: z.string(), port: z.number(), user: z.string() }).nullable(),
  warnings: z.array(z.string()),
  started_at: z.string().nullable(),
  metered_through: z.string().nullable(),
  ended_at: z.string().nullable(),
  created_at: z.string(),
});
export type InstanceRow = z.infer<typeof InstanceRow>;

const COLUMNS = sql.fragment`id, account_id, request_hash, provider, provider_instance_id, name, status, provider_status, gpu_type,
  gpu_count, price_per_hour_micros, spot, region, docker_image, public_ip, ssh, warnings, started_at, metered_through,
  ended_at, created_at`;

export type EventType = 'instance.started' | 'instance.stopped' | 'instance.terminated' | 'spot.preempted' | 'webhook.test';

/** Writes an event to the outbox; the dedupe key makes a retried step write it once. */
export async function insertEvent(
  conn: CommonQueryMethods,
  event: { accountId: string; type: EventType; data: Record<string, unknown>; dedupeKey: string },
): Promise<void> {
  await conn.query(sql.typeAlias('void')`
    INSERT INTO events (id, account_id, type, data, dedupe_key)
    VALUES (${newId('evt')}, ${event.accountId}, ${event.type}, ${sql.jsonb(event.data as never)}, ${event.dedupeKey})
    ON CONFLICT (account_id, dedupe_key) DO NOTHING`);
}

export function createInstanceQueries(pool: Pool) {
  const ledger = createLedgerQueries(pool);
  return {
    /** Records an instance the provider accepted; a retried call finds the row it wrote before. */
    async upsertLaunched(input: {
      id: string;
      accountId: string;
      requestHash: string;
      name: string;
      gpuType: string;
      gpuCount: number;
      spot: boolean;
      dockerImage: string | null;
      warnings: string[];
      instance: ProviderInstance;
    }): Promise<InstanceRow> {
      const i = input.instance;
      return pool.one(sql.type(InstanceRow)`
        INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, provider_status, gpu_type,
          gpu_count, price_per_hour_micros, spot, region, docker_image, public_ip, ssh, warnings)
        VALUES (${input.id}, ${input.accountId}, ${input.requestHash}, ${i.provider}, ${i.id}, ${input.name}, ${i.status}, ${i.providerStatus},
          ${input.gpuType}, ${input.gpuCount}, ${i.pricePerHour === null ? null : Math.round(i.pricePerHour * 1_000_000)},
          ${input.spot}, ${i.region}, ${input.dockerImage ?? i.dockerImage}, ${i.publicIp},
          ${i.ssh ? sql.jsonb(i.ssh) : null}, ${sql.jsonb(input.warnings)})
        ON CONFLICT (id) DO UPDATE SET updated_at = now()
        RETURNING ${COLUMNS}`);
    },

    async findById(id: string): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`SELECT ${COLUMNS} FROM instances WHERE id = ${id}`);
    },

    async findByProviderId(accountId: string, providerInstanceId: string): Promise<InstanceRow | null> {
      return pool.maybeOne(sql.type(InstanceRow)`
        SELECT ${COLUMNS} FROM instances WHERE account_id = ${accountId} AND provider_instance_id = ${providerInstanceId}
        ORDER BY created_at DESC LIMIT 1`);
    },

    async listForAccount(accountId: string): Promise<readonly InstanceRow[]> {
      return pool.any(sql.type(InstanceRow)`
        SELECT ${COLUMNS} FROM instances WHERE account_id = ${accountId} ORDER BY created_at DESC`);
    },

    /** Latest provider view of an instance (status, address, price); never moves a terminated row back. */
    async refreshFromProvider(id: string, i: ProviderInstance): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET
          status = CASE WHEN status = 'terminated' THEN status ELSE ${i.status} END,
          provider_status = ${i.providerStatus}, public_ip = coalesce(${i.publicIp}, public_ip),
          ssh = coalesce(${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb, ssh),
          price_per_hour_micros = coalesce(${i.pricePerHour === null ? null : Math.round(i.pricePerHour * 1_000_000)}, price_per_hour_micros),
          region = coalesce(region, ${i.region}), updated_at = now()
        WHERE id = ${id} RETURNING ${COLUMNS}`);
    },

    /** First time running: metering starts at `at`, and `instance.started` is written in the same transaction. */
    async markRunning(id: string, at: Date, i: ProviderInstance): Promise<InstanceRow> {
      return pool.transaction(async (tx) => {
        const row = await tx.one(sql.type(InstanceRow)`
          UPDATE instances SET status = 'running', provider_status = ${i.providerStatus},
            public_ip = coalesce(${i.publicIp}, public_ip), ssh = coalesce(${i.ssh ? sql.jsonb(i.ssh) : null}::jsonb, ssh),
            started_at = coalesce(started_at, ${at.toISOString()}), metered_through = coalesce(metered_through, ${at.toISOString()}),
            updated_at = now()
          WHERE id = ${id} RETURNING ${COLUMNS}`);
        await insertEvent(tx, {
          accountId: row.account_id,
          type: 'instance.started',
          data: { instance_id: row.provider_instance_id, provider: row.provider, gpu_type: row.gpu_type, started_at: row.started_at },
          dedupeKey: `instance.started:${id}`,
        });
        return row;
      });
    },

    /**
     * Charges elapsed time up to `through`, exactly once: the charge for [metered_through, through) is computed
     * from the run's start (so rounding never accumulates), posted with an idempotency key naming the interval,
     * and `metered_through` moves in the same transaction. A call for an interval already charged is a no-op.
     */
    async chargeThrough(id: string, through: Date): Promise<{ chargedMicros: number; row: InstanceRow }> {
      return pool.transaction(async (tx) => {
        const row = await tx.one(sql.type(InstanceRow)`SELECT ${COLUMNS} FROM instances WHERE id = ${id} FOR UPDATE`);
        if (!row.started_at || !row.metered_through || row.price_per_hour_micros === null) return { chargedMicros: 0, row };
        const start = Date.parse(row.started_at);
        const from = Date.parse(row.metered_through);
        const to = through.getTime();
        if (to <= from) return { chargedMicros: 0, row };
        const amount = chargeForElapsed(row.price_per_hour_micros, to - start) - chargeForElapsed(row.price_per_hour_micros, from - start);
        await ledger.postEntry(
          {
            accountId: row.account_id,
            type: 'instance_charge',
            amountMicros: -amount,
            description: `${row.gpu_count}× ${row.gpu_type} on ${row.provider}, ${new Date(from).toISOString()} – ${through.toISOString()}`,
            instanceId: row.provider_instance_id ?? row.id,
            idempotencyKey: `charge:${id}:${to}`,
          },
          tx,
        );
        const updated = await tx.one(sql.type(InstanceRow)`
          UPDATE instances SET metered_through = ${through.toISOString()}, updated_at = now() WHERE id = ${id} RETURNING ${COLUMNS}`);
        return { chargedMicros: amount, row: updated };
      });
    },

    /** Moves to a final or paused state with its event, in one transaction. */
    async markEnded(
      id: string,
      status: Extract<InstanceStatus, 'stopped' | 'terminated' | 'failed'>,
      event: EventType | null,
      at: Date,
      extra: Record<string, unknown> = {},
    ): Promise<InstanceRow> {
      return pool.transaction(async (tx) => {
        const row = await tx.one(sql.type(InstanceRow)`
          UPDATE instances SET status = ${status},
            provider_status = CASE WHEN ${status} = 'stopped' THEN provider_status ELSE NULL END,
            ended_at = CASE WHEN ${status} = 'stopped' THEN ended_at ELSE coalesce(ended_at, ${at.toISOString()}) END,
            updated_at = now()
          WHERE id = ${id} RETURNING ${COLUMNS}`);
        if (event) {
          await insertEvent(tx, {
            accountId: row.account_id,
            type: event,
            data: { instance_id: row.provider_instance_id, provider: row.provider, gpu_type: row.gpu_type, at: at.toISOString(), ...extra },
            dedupeKey: `${event}:${id}:${status === 'stopped' ? at.getTime() : 'final'}`,
          });
        }
        return row;
      });
    },

    async markStatus(id: string, status: InstanceStatus): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET status = CASE WHEN status = 'terminated' THEN status ELSE ${status} END, updated_at = now()
        WHERE id = ${id} RETURNING ${COLUMNS}`);
    },
  };
}
export type InstanceQueries = ReturnType<typeof createInstanceQueries>;
