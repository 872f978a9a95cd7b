/**
 * The request bodies of launch and plan, in a leaf module (zod, the GPU catalog, the text rules; no I/O), so
 * clients (the `gpuo` CLI's MCP tools) build their input schemas from the very schemas the API checks.
 */
import { z } from 'zod';
import { IDLE_STOP_LAMBDA_MESSAGE } from '../domain/idle-stop';
import { resolveGpuName } from '../providers/gpu-catalog';
import { PROVIDERS } from '../providers/types';
import { echo, scriptText, text } from './text';

export const providerId = z.enum(PROVIDERS, {
  errorMap: (_issue, ctx) => ({ message: `must be one of ${PROVIDERS.join(', ')} (got ${echo(ctx.data)})` }),
});

/** What every route answers for a GPU name that names no GPU type (with 400 `validation_error`). */
export const unknownGpuMessage = (name: string) =>
  `names no GPU type (got ${echo(name)}); GET /v1/gpus lists the GPU types and their aliases`;

/**
 * A GPU type as people type it: a slug, or an alias naming one slug (`4090` is `rtx-4090`), answered as the
 * slug; a name of several (`h100`) is refused with every slug it could mean, as is a name of none (with
 * {@link unknownGpuMessage}). Every route that takes a GPU type takes this field, so an unknown GPU is the
 * same 400 `validation_error` in the same words on launch, plan, pricing, alerts, schedules and jobs.
 */
export const gpuTypeField = text({ max: 64 })
  .transform((name, ctx) => {
    const resolved = resolveGpuName(name);
    if ('slug' in resolved) return resolved.slug;
    const message =
      'candidates' in resolved
        ? `names several GPU types (got ${echo(name)}): ${resolved.candidates.join(', ')}; send one of them`
        : unknownGpuMessage(name);
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  })
  .describe('a GPU type slug (GET /v1/gpus), or an alias naming one (`4090`, `l40s`)');

/**
 * A container image reference (`ghcr.io/org/image:tag`, `pytorch/pytorch@sha256:…`): the one rule launch and
 * schedules check, so an image a schedule refuses is refused on launch with the same 400, before anything is
 * created.
 */
export const dockerImageField = z
  .string()
  .min(1)
  .max(300)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/, 'an image reference such as ghcr.io/org/image:tag');

/** Idle stop (beyond the spec; src/domain/idle-stop.ts): off unless sent. Launch and schedules take the same shape. */
export const IdleStopBody = z
  .object({
    utilization_below_percent: z
      .number()
      .min(1)
      .max(100)
      .describe('every GPU below this utilization (percent, 1-100) counts as idle'),
    for_minutes: z
      .number()
      .int()
      .min(1)
      .max(10_080)
      .describe('idle this many minutes (1 to 10080, a week) before the stop'),
  })
  .strict()
  .describe(
    'beyond the spec: stop (runpod) or terminate (vastai) the instance once every GPU reported utilization below the ' +
      'threshold for that long (the end is charged up to that moment, its record says why, and instance.idle_stopped ' +
      'is emitted). Not for lambda, which reports no GPU utilization.',
  );

export const LaunchBody = z
  .object({
    provider: providerId,
    gpu_type: gpuTypeField,
    gpu_count: z.number().int().min(1).max(8).default(1),
    docker_image: dockerImageField.optional(),
    spot: z.boolean().default(false),
    name: z
      .string()
      .trim()
      .min(1)
      .max(48)
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only')
      .optional(),
    volume_gb: z.number().int().min(10).max(4000).optional(),
    disk_gb: z.number().int().min(5).max(4000).optional(),
    region: text({ max: 64 }).optional(),
    ssh_key_name: text({ max: 64 }).optional(),
    onstart_cmd: scriptText({ max: 4096 })
      .optional()
      .describe(
        "a startup command: vastai runs it as the instance's `onstart`, runpod as the container's command " +
          "(in place of the image's default command); lambda takes none (422 unsupported_operation)",
      ),
    idle_stop: IdleStopBody.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.provider === 'lambda' && !b.region)
      ctx.addIssue({ code: 'custom', path: ['region'], message: 'required when provider is lambda' });
    if (b.provider === 'lambda' && b.idle_stop)
      ctx.addIssue({ code: 'custom', path: ['idle_stop'], message: IDLE_STOP_LAMBDA_MESSAGE });
  });
export type LaunchBody = z.infer<typeof LaunchBody>;

/** A plan without `provider`: ranked candidates across providers. */
export const PlanSearchBody = z
  .object({
    gpu_type: gpuTypeField,
    gpu_count: z.number().int().min(1).max(8).default(1),
    spot: z.boolean().default(false).describe('true: spot offers first (where sold), then on-demand'),
    providers: z.array(z.enum(PROVIDERS)).min(1).max(PROVIDERS.length).optional().describe('default: all three'),
    max_price_per_hour: z.number().gt(0).max(100_000).optional().describe('dollars per hour for the whole instance'),
  })
  .strict();
