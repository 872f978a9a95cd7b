/**
 * The `instances` row as every instance query module reads it: its schema, the columns they select, and the
 * price conversion the provider's answers go through.
 */
import { z } from 'zod';
import { INSTANCE_STATUSES, PROVIDERS } from '../../providers/types';
import { sql } from '../sql';

export const InstanceRow = z.object({
  id: z.string(),
  account_id: z.string(),
  request_hash: z.string(),
  provider: z.enum(PROVIDERS),
  provider_instance_id: z.string().nullable(),
  /** The name at the provider, carrying the launch tag; written before the create. */
  provider_name: z.string().nullable(),
  name: z.string(),
  status: z.enum(INSTANCE_STATUSES),
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
  end_reason: z.string().nullable(),
  lifecycle_warning: z.string().nullable(),
  created_at: z.string(),
  /** Fingerprint of the provider key that created (or has since seen) the instance; null on older rows. */
  provider_key_fingerprint: z.string().nullable(),
  /** Why the connected key cannot manage the instance (it is not the key that created it); shown in `warnings`. */
  key_warning: z.string().nullable(),
  /** When the provider accepted the create. */
  accepted_at: z.string().nullable(),
  /** The launch's idle-stop rule (src/domain/idle-stop.ts); null: never stopped for idling. */
  idle_stop: z.object({ utilization_below_percent: z.number(), for_minutes: z.number() }).nullable(),
});
export type InstanceRow = z.infer<typeof InstanceRow>;

/** An ended instance with what the ledger charged it in all (micro-dollars, positive). */
export const EndedInstanceRow = InstanceRow.extend({ posted_micros: z.number() });
export type EndedInstanceRow = z.infer<typeof EndedInstanceRow>;

/** The columns of `InstanceRow`, in its order: what every query of a whole row selects or returns. */
export const INSTANCE_COLUMNS = sql.fragment`id, account_id, request_hash, provider, provider_instance_id,
  provider_name, name, status, provider_status,
  gpu_type, gpu_count, price_per_hour_micros, spot, region, docker_image, public_ip, ssh, warnings, started_at,
    metered_through,
  ended_at, end_reason, lifecycle_warning, created_at, provider_key_fingerprint, key_warning, accepted_at, idle_stop`;

/** Statuses after which nothing runs at the provider on our behalf. */
export const ENDED_STATUSES = ['terminated', 'failed'] as const;

/** A provider's dollar price in micro-dollars (null: the provider gave none). */
export const micros = (dollars: number | null) => (dollars === null ? null : Math.round(dollars * 1_000_000));
