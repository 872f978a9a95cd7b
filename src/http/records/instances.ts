/** The instance record of the API (launch, stop, terminate, the list), and the mappings from a row and a provider's view. */
import { z } from 'zod';
import type { InstanceRow } from '../../db/queries/instances';
import { microsToDollars } from '../../domain/money';
import { PROVIDERS, type ProviderInstance } from '../../providers/types';
import { IdleStopBody } from '../launch-schemas';
import { isoTimestamp } from '../schemas';

const STATUSES = ['provisioning', 'running', 'stopping', 'stopped', 'terminating', 'terminated', 'failed', 'unknown'] as const;

export const InstanceRecord = z.object({
  id: z.string().describe("the provider's own instance id (used in paths)"),
  provider: z.enum(PROVIDERS),
  name: z.string().nullable(),
  status: z.enum(STATUSES),
  provider_status: z.string().nullable(),
  gpu_type: z.string().nullable(),
  gpu_count: z.number().int(),
  price_per_hour: z.number().nullable().describe('dollars per hour for the whole instance'),
  spot: z.boolean(),
  region: z.string().nullable(),
  docker_image: z.string().nullable(),
  public_ip: z.string().nullable(),
  ssh: z.object({ host: z.string(), port: z.number(), user: z.string() }).nullable(),
  created_at: isoTimestamp.nullable(),
  managed: z.boolean().describe('true for instances launched through this service'),
  warnings: z.array(z.string()).optional(),
  end_reason: z.string().optional().describe('why the service itself stopped or ended the instance, when it did'),
  idle_stop: IdleStopBody.optional().describe('the idle-stop rule the instance was launched with (beyond the spec); absent: none'),
});
export type InstanceRecord = z.infer<typeof InstanceRecord>;

export function toInstanceRecord(row: InstanceRow): InstanceRecord {
  const warnings = [...row.warnings, ...(row.lifecycle_warning ? [row.lifecycle_warning] : []), ...(row.key_warning ? [row.key_warning] : [])];
  return {
    id: row.provider_instance_id ?? row.id,
    provider: row.provider,
    name: row.name,
    status: row.status,
    provider_status: row.provider_status,
    gpu_type: row.gpu_type,
    gpu_count: row.gpu_count,
    price_per_hour: row.price_per_hour_micros === null ? null : microsToDollars(row.price_per_hour_micros),
    spot: row.spot,
    region: row.region,
    docker_image: row.docker_image,
    public_ip: row.public_ip,
    ssh: row.ssh,
    created_at: row.created_at,
    managed: true,
    ...(warnings.length ? { warnings } : {}),
    ...(row.end_reason ? { end_reason: row.end_reason } : {}),
    ...(row.idle_stop ? { idle_stop: row.idle_stop } : {}),
  };
}

export function fromProvider(i: ProviderInstance, row: InstanceRow | undefined): InstanceRecord {
  const base = row ? toInstanceRecord(row) : null;
  return {
    id: i.id,
    provider: i.provider,
    name: base?.name ?? i.name,
    status: i.status,
    provider_status: i.providerStatus,
    gpu_type: i.gpuType ?? base?.gpu_type ?? null,
    gpu_count: i.gpuCount,
    // A managed instance shows the price it is metered at (fixed at launch), not what the provider says now.
    price_per_hour: base?.price_per_hour ?? i.pricePerHour ?? null,
    spot: i.spot,
    region: i.region,
    docker_image: i.dockerImage ?? base?.docker_image ?? null,
    public_ip: i.publicIp,
    ssh: i.ssh,
    created_at: base?.created_at ?? i.createdAt,
    managed: Boolean(row),
    ...(base?.warnings ? { warnings: base.warnings } : {}),
    ...(base?.end_reason ? { end_reason: base.end_reason } : {}),
    ...(base?.idle_stop ? { idle_stop: base.idle_stop } : {}),
  };
}
