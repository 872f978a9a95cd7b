/**
 * The request shapes of the job routes (src/http/routes/jobs.ts): a job's body, its list query, and what the
 * wrapper posts (its exit report and its shipped tail).
 */
import { z } from 'zod';
import { JOB_STATUSES, RETRY_EVENTS } from '../db/queries/jobs';
import { TEMPLATES } from '../domain/templates';
import { PROVIDERS } from '../providers/types';
import { gpuTypeField, IdleStopBody } from './launch-schemas';
import { ListQuery } from './paging';
import { pathId, printedText, scriptText, text } from './text';

const DURATION = /^(\d+(?:\.\d+)?)(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export const durationMs = (d: string): number => {
  const m = DURATION.exec(d)!;
  return Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
};
const money = z
  .number()
  .positive()
  .max(1_000_000)
  .refine((v) => Math.abs(v * 1_000_000 - Math.round(v * 1_000_000)) < 1e-6, 'at most six decimals');

export const CreateBody = z
  .object({
    name: text({ max: 100, trim: true }).optional(),
    gpu: gpuTypeField,
    gpu_count: z.number().int().min(1).max(8).default(1),
    template: z
      .string()
      .refine((t) => TEMPLATES.some((x) => x.slug === t), 'must be a template slug (GET /v1/templates)')
      .optional(),
    docker_image: z
      .string()
      .min(1)
      .max(300)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/, 'an image reference such as ghcr.io/org/image:tag')
      .optional(),
    command: scriptText({ max: 16_384 }),
    env: z
      .record(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'a shell variable name')
          .refine((k) => !k.startsWith('GPUO_'), "GPUO_ names are the wrapper's"),
        z.string().max(16_384),
      )
      .refine((e) => Object.keys(e).length <= 100, 'at most 100 variables')
      .optional()
      .describe('sealed at rest, given to the command, never returned'),
    providers: z
      .array(z.enum(PROVIDERS))
      .min(1)
      .optional()
      .describe('allowed providers; default every connected one (lambda only with a default SSH key)'),
    spot_policy: z.enum(['spot', 'on-demand', 'auto']).default('auto'),
    max_price_per_hour: money.optional(),
    max_cost: money.optional().describe('the whole job: every attempt together'),
    max_duration_hours: z.number().positive().max(720).optional().describe('per attempt, from its start'),
    retry: z
      .object({
        on: z.array(z.enum(RETRY_EVENTS)).default(['no_capacity', 'preemption']),
        max_attempts: z.number().int().min(1).max(20).default(3),
        within: z.string().regex(DURATION, 'a duration such as 90s, 30m, 2h or 1d').default('2h'),
        on_demand_after_preemptions: z.number().int().min(0).max(20).optional(),
      })
      .strict()
      .optional(),
    idle_stop: IdleStopBody.optional(),
  })
  .strict();

export const IdParams = z.object({ id: pathId(100) }).strict();
export const JobListQuery = ListQuery.extend({ status: z.enum(JOB_STATUSES).optional() });
export const ExitBody = z
  .object({
    token: z.string().min(1).max(200),
    exit_code: z.number().int().min(0).max(255),
    tail: printedText({ max: 65_536 }).default(''),
  })
  .strict();

export const TailBody = z
  .object({
    token: z.string().min(1).max(200),
    tail: printedText({ max: 65_536 }),
  })
  .strict();
