/**
 * Rows that come under management outside a launch: an instance reconciliation found at the provider with no
 * row, and a row whose workflow was lost.
 */
import type { ProviderInstance } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { INSTANCE_COLUMNS as COLUMNS, InstanceRow, micros } from './instance-row';

export function createInstanceAdoptionQueries(pool: Pool) {
  return {
    /** Adopts an instance found at the provider with no live workflow: metered from `at`, warned about. */
    async upsertAdopted(input: {
      id: string;
      accountId: string;
      instance: ProviderInstance;
      at: Date;
      warning: string;
    }): Promise<InstanceRow> {
      const i = input.instance;
      return pool.one(sql.type(InstanceRow)`
        INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, provider_name, name,
          status, provider_status,
          gpu_type, gpu_count, price_per_hour_micros, spot, region, docker_image, public_ip, ssh, warnings, started_at,
            metered_through)
        VALUES (${input.id}, ${input.accountId}, 'adopted', ${i.provider}, ${i.id}, ${i.name ?? i.id},
          ${i.name ?? i.id}, ${i.status},
          ${i.providerStatus}, ${i.gpuType ?? 'unknown'}, ${i.gpuCount}, ${micros(i.pricePerHour)}, ${i.spot},
            ${i.region},
          ${i.dockerImage}, ${i.publicIp}, ${i.ssh ? sql.jsonb(i.ssh) : null}, ${sql.jsonb([input.warning])},
          ${i.status === 'running' ? input.at.toISOString() : null},
            ${i.status === 'running' ? input.at.toISOString() : null})
        ON CONFLICT (id) DO UPDATE SET updated_at = now()
        RETURNING ${COLUMNS}`);
    },

    /** A row that lost its workflow and is managed again from `at`: what ran unwatched is not charged. */
    async resumeManagement(id: string, at: Date, warning: string): Promise<InstanceRow> {
      return pool.one(sql.type(InstanceRow)`
        UPDATE instances SET
          metered_through = CASE WHEN started_at IS NULL THEN NULL ELSE greatest(metered_through,
            ${at.toISOString()}) END,
          warnings = CASE WHEN warnings @> ${sql.jsonb([warning])} THEN warnings ELSE warnings
            || ${sql.jsonb([warning])} END,
          updated_at = now()
        WHERE id = ${id} RETURNING ${COLUMNS}`);
    },
  };
}
