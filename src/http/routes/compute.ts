import { z } from 'zod';
import type { InstanceQueries, InstanceRow } from '../../db/queries/instances';
import type { FleetViewQueries } from '../../db/queries/fleet-views';
import type { ProviderKeyQueries } from '../../db/queries/provider-keys';
import type { SshKeyQueries } from '../../db/queries/ssh-keys';
import { randomToken } from '../../domain/ids';
import { microsToDollars } from '../../domain/money';
import { ApiError, NotFoundError, ProviderNotConnectedError, ServiceUnavailableError, UnsupportedOperationError, ValidationError } from '../../errors';
import { launchProblems } from '../../providers/gpu-catalog';
import { PROVIDER_NAMES, PROVIDERS, type ProviderAdapter, type ProviderId, type ProviderInstance } from '../../providers/types';
import type { ApiKeyRow } from '../../db/queries/api-keys';
import type { BalanceGuard, LaunchCost } from '../../admission/balance-guard';
import type { LaunchIntent } from '../../db/queries/admission';
import type { ProviderCredentials } from '../../providers/provider-credentials';
import { launchIntentOf } from '../../../workflows/contracts/launch';
import type { FleetClient } from '../../workflow-clients/fleet';
import type { InstanceClient } from '../../workflow-clients/instances';
import type { ApiRouter } from '../route';
import { isoTimestamp } from '../schemas';
import { pathId } from '../text';
import { IdleStopBody, LaunchBody } from '../launch-schemas';

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


const InstanceParams = z.object({ provider_instance_id: pathId(128) }).strict();

/** Which capability fields each provider uses; the others are accepted and reported in `warnings`. */
const CAPABILITY_FIELDS: Record<'volume_gb' | 'onstart_cmd' | 'ssh_key_name', ProviderId> = {
  volume_gb: 'runpod',
  onstart_cmd: 'vastai',
  ssh_key_name: 'lambda',
};

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

export interface ComputeDeps {
  workflows: InstanceClient;
  adapters: Record<ProviderId, ProviderAdapter>;
  credentials: ProviderCredentials;
  instances: InstanceQueries;
  sshKeys: SshKeyQueries;
  /** Spend admission: 402 insufficient_balance for a launch the balance cannot cover with the whole fleet. */
  balance: BalanceGuard;
  /** Which providers the account connected (the list needs no key opened). */
  providerKeys: Pick<ProviderKeyQueries, 'listProviderKeys'>;
  /** The fleet view GET /v1/compute reads. */
  fleet: { views: FleetViewQueries; client: FleetClient };
}

/** The warnings a launch gives: capability fields the chosen provider does not use (accepted, ignored). */
export function launchWarnings(body: LaunchBody): string[] {
  return (Object.keys(CAPABILITY_FIELDS) as (keyof typeof CAPABILITY_FIELDS)[])
    .filter((f) => body[f] !== undefined && CAPABILITY_FIELDS[f] !== body.provider)
    .map((f) => `${f} applies to ${CAPABILITY_FIELDS[f]} only and was ignored`);
}

/**
 * The launch's checks before admission, in the launch's order (plan runs the same ones): spot where the
 * provider sells it, the provider's catalog limits, a connected key, an SSH key for Lambda. Throws the refusal.
 */
export async function assertLaunchAllowed(deps: Pick<ComputeDeps, 'credentials' | 'sshKeys'>, body: LaunchBody, accountId: string): Promise<void> {
  if (body.spot && body.provider !== 'vastai') {
    throw new UnsupportedOperationError(
      body.provider === 'lambda' ? 'Lambda has no spot capacity; launch without spot.' : 'RunPod no longer offers spot pods; launch without spot.',
    );
  }
  const problems = launchProblems(body.provider, { gpuType: body.gpu_type, gpuCount: body.gpu_count, region: body.region });
  if (problems.length) throw new UnsupportedOperationError(`${PROVIDER_NAMES[body.provider]} cannot serve this launch: ${problems[0]!.path} ${problems[0]!.message}.`, problems.map((p) => ({ ...p })));
  if ((await deps.credentials.findApiKey(accountId, body.provider)) === null) throw new ProviderNotConnectedError(body.provider);
  if (body.provider === 'lambda' && !body.ssh_key_name && !(await deps.sshKeys.findDefaultSshKey(accountId))) {
    throw new ValidationError('Lambda launches need ssh_key_name or a default SSH key (POST /v1/ssh-keys).', [
      { path: 'ssh_key_name', message: 'required when the account has no default SSH key' },
    ]);
  }
}

/**
 * A launch's admission: the account's balance and live-instance limit and the API key's spend cap, decided
 * together under the account's lock (`admitLaunch`). `reserve` (a launch) writes the reservation when admitted;
 * without it (a plan) nothing is written. Throws what the launch answers: 402 (the balance's or the key cap's
 * numbers), 409 or 422. A replay of a launch that exists is never refused.
 */
export async function assertAdmitted(
  deps: Pick<ComputeDeps, 'balance'>,
  cost: LaunchCost & { intent: LaunchIntent },
  apiKey: ApiKeyRow,
  { reserve = true }: { reserve?: boolean } = {},
): Promise<void> {
  const admission = { ...cost, intent: { ...cost.intent, apiKeyId: apiKey.id } };
  await (reserve ? deps.balance.admit(admission) : deps.balance.check(admission));
}

export function registerComputeRoutes(api: ApiRouter, deps: ComputeDeps): void {
  api.add({
    method: 'post',
    path: '/v1/compute/launch',
    tag: 'Compute',
    summary: 'Launch a GPU instance',
    description:
      'Answers 201 once the provider accepted the create; the launchInstance workflow waits for running, meters and emits events. ' +
      'Send an Idempotency-Key header to make retries safe: the same key and body replay the first answer, another body is 409.',
    auth: true,
    body: LaunchBody,
    responses: {
      201: {
        description: 'The launched instance',
        schema: InstanceRecord,
        headers: { 'Idempotency-Key': 'the key of this launch (generated when none was sent): retry with it to get the same instance' },
      },
    },
    errors: [402, 409, 422, 429, 502, 503],
    handler: async ({ body, accountId, apiKey, ctx }) => {
      await assertLaunchAllowed(deps, body, accountId);
      const idempotencyKey = ctx.get('idempotency-key');
      if (idempotencyKey && !/^[A-Za-z0-9_.:-]{1,100}$/.test(idempotencyKey)) {
        throw new ValidationError('Idempotency-Key must be 1-100 characters of letters, digits, _ . : -');
      }
      // Echoed (generated when absent) so a client that got no answer can retry the same launch safely.
      const key = idempotencyKey || `gen_${randomToken(96)}`;
      ctx.set('Idempotency-Key', key);
      const input = deps.workflows.launchInput({ accountId, idempotencyKey: key, apiKeyId: apiKey.id, body, warnings: launchWarnings(body) });
      await assertAdmitted(deps, { ...input, intent: launchIntentOf(input) }, apiKey);
      try {
        return { status: 201, body: toInstanceRecord(await deps.workflows.launch(input)) };
      } catch (err) {
        // A definite refusal (not "still waiting"): the reservation must not hold money for nothing.
        if (err instanceof ApiError && !(err instanceof ServiceUnavailableError)) await deps.balance.release(input.instanceId, err.message);
        throw err;
      }
    },
  });

  const lifecycle = (action: 'stop' | 'terminate') =>
    api.add({
      method: 'post',
      path: `/v1/compute/{provider_instance_id}/${action}`,
      tag: 'Compute',
      summary: action === 'stop' ? 'Stop an instance (runpod only)' : 'Terminate an instance (idempotent)',
      auth: true,
      params: InstanceParams,
      responses: {
        200: { description: 'The instance record, after the provider confirmed', schema: InstanceRecord },
        202: {
          description:
            'The provider has not confirmed within the answer bound (slow, unreachable, key removed); the request is kept and retried ' +
            'by the instance workflow, and the record says why in `warnings`',
          schema: InstanceRecord,
        },
      },
      errors: [404, 422, 502, 503],
      handler: async ({ params, accountId }) => {
        const row = await deps.instances.findByProviderId(accountId, params.provider_instance_id);
        if (!row) throw new NotFoundError(`No instance ${params.provider_instance_id} in this account.`);
        if (action === 'stop' && row.provider !== 'runpod') {
          throw new UnsupportedOperationError(`${row.provider} instances cannot be stopped; use terminate.`);
        }
        if (row.status === 'terminated' || row.status === 'failed') return { body: toInstanceRecord(row) };
        if (action === 'stop' && row.status === 'stopped') return { body: toInstanceRecord(row) };
        const { row: latest, done } = await deps.workflows.end(row, action);
        return { status: done ? 200 : 202, body: toInstanceRecord(latest) };
      },
    });
  lifecycle('stop');
  lifecycle('terminate');
}
