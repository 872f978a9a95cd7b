import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { InstanceQueries, InstanceRow } from '../../db/queries/instances';
import type { SshKeyQueries } from '../../db/queries/ssh-keys';
import { randomToken } from '../../domain/ids';
import { microsToDollars } from '../../domain/money';
import { ApiError, NotFoundError, ProviderNotConnectedError, UnsupportedOperationError, ValidationError } from '../../errors';
import { isKnownGpuSlug, launchProblems } from '../../providers/gpu-catalog';
import { PROVIDER_NAMES, PROVIDERS, type ProviderAdapter, type ProviderId, type ProviderInstance } from '../../providers/types';
import type { BalanceGuard } from '../../services/balance-guard';
import type { ProviderCredentials } from '../../services/provider-credentials';
import type { LaunchInput, LaunchTiming } from '../../../workflows/contracts/launch';
import type { InstanceClient } from '../../workflow-clients/instances';
import type { ApiRouter } from '../route';
import { isoTimestamp } from '../schemas';
import { pathId, scriptText, text } from '../text';
import { providerId } from './provider-keys';

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
});
type InstanceRecord = z.infer<typeof InstanceRecord>;

const LaunchBody = z
  .object({
    provider: providerId,
    gpu_type: text({ max: 64 }).refine(isKnownGpuSlug, 'unknown GPU type (GET /v1/pricing lists them)'),
    gpu_count: z.number().int().min(1).max(8).default(1),
    docker_image: text({ max: 300 }).optional(),
    spot: z.boolean().default(false),
    name: z.string().trim().min(1).max(48).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only').optional(),
    volume_gb: z.number().int().min(10).max(4000).optional(),
    disk_gb: z.number().int().min(5).max(4000).optional(),
    region: text({ max: 64 }).optional(),
    ssh_key_name: text({ max: 64 }).optional(),
    onstart_cmd: scriptText({ max: 4096 }).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.provider === 'lambda' && !b.region) ctx.addIssue({ code: 'custom', path: ['region'], message: 'required when provider is lambda' });
  });
type LaunchBody = z.infer<typeof LaunchBody>;

const InstanceParams = z.object({ provider_instance_id: pathId(128) }).strict();

/** Which capability fields each provider uses; the others are accepted and reported in `warnings`. */
const CAPABILITY_FIELDS: Record<'volume_gb' | 'onstart_cmd' | 'ssh_key_name', ProviderId> = {
  volume_gb: 'runpod',
  onstart_cmd: 'vastai',
  ssh_key_name: 'lambda',
};

export function toInstanceRecord(row: InstanceRow): InstanceRecord {
  const warnings = row.lifecycle_warning ? [...row.warnings, row.lifecycle_warning] : row.warnings;
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
  };
}

function fromProvider(i: ProviderInstance, row: InstanceRow | undefined): InstanceRecord {
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
  };
}

function requestHash(body: LaunchBody): string {
  const canonical = JSON.stringify(Object.keys(body).sort().map((k) => [k, body[k as keyof LaunchBody]]));
  return createHash('sha256').update(canonical).digest('hex');
}

export interface ComputeDeps {
  workflows: InstanceClient;
  adapters: Record<ProviderId, ProviderAdapter>;
  credentials: ProviderCredentials;
  instances: InstanceQueries;
  sshKeys: SshKeyQueries;
  /** 402 insufficient_balance for a launch whose first hour the balance cannot cover. */
  balance: BalanceGuard;
  /** Poll and meter intervals handed to new launch workflows (hours in production; short in tests). */
  launchTiming?: LaunchTiming;
}

export function registerComputeRoutes(api: ApiRouter, deps: ComputeDeps): void {
  const timing = deps.launchTiming ?? { pollIntervalMs: 60_000, meterIntervalMs: 3_600_000 };

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
    handler: async ({ body, accountId, ctx }) => {
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
      const idempotencyKey = ctx.get('idempotency-key');
      if (idempotencyKey && !/^[A-Za-z0-9_.:-]{1,100}$/.test(idempotencyKey)) {
        throw new ValidationError('Idempotency-Key must be 1-100 characters of letters, digits, _ . : -');
      }
      // Echoed (generated when absent) so a client that got no answer can retry the same launch safely.
      const key = idempotencyKey || `gen_${randomToken(96)}`;
      ctx.set('Idempotency-Key', key);
      const instanceId = `launch-${accountId}-${key}`;
      const hash = requestHash(body);
      const tag = createHash('sha256').update(instanceId).digest('hex').slice(0, 10);
      const warnings = (Object.keys(CAPABILITY_FIELDS) as (keyof typeof CAPABILITY_FIELDS)[])
        .filter((f) => body[f] !== undefined && CAPABILITY_FIELDS[f] !== body.provider)
        .map((f) => `${f} applies to ${CAPABILITY_FIELDS[f]} only and was ignored`);
      const input: LaunchInput = {
        instanceId,
        accountId,
        requestHash: hash,
        provider: body.provider,
        gpuType: body.gpu_type,
        gpuCount: body.gpu_count,
        spot: body.spot,
        name: body.name ?? `gpuo-${tag}`,
        providerName: `${body.name ?? 'gpuo'}-${tag}`,
        dockerImage: body.docker_image,
        volumeGb: body.provider === 'runpod' ? body.volume_gb : undefined,
        diskGb: body.disk_gb,
        region: body.region,
        sshKeyName: body.provider === 'lambda' ? body.ssh_key_name : undefined,
        onstartCmd: body.provider === 'vastai' ? body.onstart_cmd : undefined,
        warnings,
        ...timing,
      };
      await deps.balance.assertCoversFirstHour(input);
      return { status: 201, body: toInstanceRecord(await deps.workflows.launch(input)) };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/compute',
    tag: 'Compute',
    summary: 'All instances visible through the account\'s connected provider keys',
    description: 'Asks every connected provider in parallel; a provider that fails shows up in `errors` while the others still answer.',
    auth: true,
    responses: {
      200: {
        description: 'Instances',
        schema: z.object({
          data: z.array(InstanceRecord),
          errors: z.array(z.object({ provider: z.enum(PROVIDERS), code: z.string(), message: z.string() })).optional(),
        }),
      },
    },
    handler: async ({ accountId }) => {
      const managed = await deps.instances.listForAccount(accountId);
      const byProviderId = new Map(managed.filter((r) => r.provider_instance_id).map((r) => [`${r.provider}:${r.provider_instance_id}`, r]));
      const results = await Promise.all(
        PROVIDERS.map(async (provider) => {
          const apiKey = await deps.credentials.findApiKey(accountId, provider);
          if (apiKey === null) return { provider, instances: [] as ProviderInstance[] };
          try {
            return { provider, instances: await deps.adapters[provider].listInstances(apiKey) };
          } catch (err) {
            const apiError = err instanceof ApiError ? err : (err as { toApiError?: () => ApiError }).toApiError?.();
            // Anything but a provider failure is ours (a bug, the database): never reported as "unreachable".
            return { provider, error: { provider, code: apiError?.code ?? 'internal_error', message: apiError?.message ?? 'An internal error occurred.' } };
          }
        }),
      );
      const data = results
        .flatMap((r) => ('instances' in r ? (r.instances ?? []) : []))
        .filter((i) => i.status !== 'terminated')
        .map((i) => fromProvider(i, byProviderId.get(`${i.provider}:${i.id}`)))
        .sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? ''));
      const errors = results.flatMap((r) => ('error' in r && r.error ? [r.error] : []));
      return { body: { data, ...(errors.length ? { errors } : {}) } };
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
