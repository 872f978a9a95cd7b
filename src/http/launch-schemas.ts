/**
 * The request bodies of launch and plan, in a leaf module (zod, the GPU catalog, the text rules; no I/O), so
 * clients (the `gpuo` CLI's MCP tools) build their input schemas from the very schemas the API checks.
 */
import { z } from 'zod';
import { IDLE_STOP_LAMBDA_MESSAGE } from '../domain/idle-stop';
import { isKnownGpuSlug } from '../providers/gpu-catalog';
import { PROVIDERS } from '../providers/types';
import { echo, scriptText, text } from './text';

export const providerId = z.enum(PROVIDERS, {
  errorMap: (_issue, ctx) => ({ message: `must be one of ${PROVIDERS.join(', ')} (got ${echo(ctx.data)})` }),
});

/** Idle stop (beyond the spec; src/domain/idle-stop.ts): off unless sent. Launch and schedules take the same shape. */
export const IdleStopBody = z
  .object({
    utilization_below_percent: z.number().min(1).max(100).describe('every GPU below this utilization (percent, 1-100) counts as idle'),
    for_minutes: z.number().int().min(1).max(10_080).describe('idle this many minutes (1 to 10080, a week) before the stop'),
  })
  .strict()
  .describe(
    'beyond the spec: stop (runpod) or terminate (vastai) the instance once every GPU reported utilization below the threshold for ' +
      'that long (the end is charged up to that moment, its record says why, and instance.idle_stopped is emitted). Not for lambda, ' +
      'which reports no GPU utilization.',
  );

export const LaunchBody = z
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
    idle_stop: IdleStopBody.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.provider === 'lambda' && !b.region) ctx.addIssue({ code: 'custom', path: ['region'], message: 'required when provider is lambda' });
    if (b.provider === 'lambda' && b.idle_stop) ctx.addIssue({ code: 'custom', path: ['idle_stop'], message: IDLE_STOP_LAMBDA_MESSAGE });
  });
export type LaunchBody = z.infer<typeof LaunchBody>;

/** A plan without `provider`: ranked candidates across providers. */
export const PlanSearchBody = z
  .object({
    gpu_type: text({ max: 64 }).refine(isKnownGpuSlug, 'unknown GPU type (GET /v1/pricing lists them)'),
    gpu_count: z.number().int().min(1).max(8).default(1),
    spot: z.boolean().default(false).describe('true: spot offers first (where sold), then on-demand'),
    providers: z.array(z.enum(PROVIDERS)).min(1).max(PROVIDERS.length).optional().describe('default: all three'),
    max_price_per_hour: z.number().gt(0).max(100_000).optional().describe('dollars per hour for the whole instance'),
  })
  .strict();

