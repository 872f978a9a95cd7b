import type { CommonQueryMethods } from 'slonik';
import type { KeyVault } from '../../domain/key-vault';
import { openStartupScript, sealStartupScript } from '../../domain/startup-script';
import { z } from 'zod';
import { pathId, scriptText, text } from '../text';
import {
  decodeRunCursor,
  SCHEDULE_STATUSES,
  type ScheduleFields,
  type ScheduleQueries,
  type ScheduleRow,
} from '../../db/queries/schedules';
import { cronProblem, shortestGapMs } from '../../domain/cron';
import { dollarsToMicros } from '../../domain/money';
import { TEMPLATES } from '../../domain/templates';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors';
import type { ApiKeyRow } from '../../db/queries/api-keys';
import { dockerImageField, gpuTypeField, IdleStopBody } from '../launch-schemas';
import type { ScheduleClient } from '../../workflow-clients/schedules';
import type { ScheduleSync } from '../../workflow-clients/schedule-sync';
import { ListQuery, pageOf } from '../paging';
import type { ApiRouter } from '../route';
import { RunRecord, ScheduleRecord, toRunRecord, toScheduleRecord } from '../records/schedules';
import { Deleted, isoTimestamp } from '../schemas';

/** Printable text (the shared text rules: no NUL, control or bidi characters; NFC). */
const plainText = (max: number) => text({ max, trim: true });
const templateSlugs = TEMPLATES.map((t) => t.slug);

const fields = {
  name: plainText(100),
  gpu: gpuTypeField,
  template: z
    .string()
    .min(1)
    .max(64)
    .refine(
      (t) => t === 'custom' || templateSlugs.includes(t),
      `must be a template slug (GET /v1/templates) or custom`,
    ),
  cron: z
    .string()
    .max(200)
    .superRefine((c, ctx) => {
      const problem = cronProblem(c);
      if (problem) ctx.addIssue({ code: 'custom', message: `invalid cron expression: ${problem}` });
    }),
  max_duration_hours: z.number().positive().max(720, 'at most 720 hours (30 days)'),
  max_cost: z
    .number()
    .positive()
    .max(1_000_000)
    .refine((v) => Math.abs(v * 1_000_000 - Math.round(v * 1_000_000)) < 1e-6, 'at most six decimals'),
  prefer_spot: z.boolean(),
  docker_image: dockerImageField,
  startup_script: scriptText({ max: 16_384 }),
};

const CreateBody = z
  .object({
    name: fields.name,
    gpu: fields.gpu,
    template: fields.template,
    cron: fields.cron,
    max_duration_hours: fields.max_duration_hours.optional(),
    max_cost: fields.max_cost.optional(),
    prefer_spot: fields.prefer_spot.default(true),
    docker_image: fields.docker_image.optional(),
    startup_script: fields.startup_script.optional(),
    idle_stop: IdleStopBody.optional(),
  })
  .strict();

const UpdateBody = z
  .object({
    name: fields.name.optional(),
    gpu: fields.gpu.optional(),
    template: fields.template.optional(),
    cron: fields.cron.optional(),
    max_duration_hours: fields.max_duration_hours.nullable().optional(),
    max_cost: fields.max_cost.nullable().optional(),
    prefer_spot: fields.prefer_spot.optional(),
    docker_image: fields.docker_image.nullable().optional(),
    startup_script: fields.startup_script.nullable().optional(),
    idle_stop: IdleStopBody.nullable().optional(),
    status: z.enum(SCHEDULE_STATUSES).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'send at least one field to change');

const IdParams = z.object({ id: pathId(100) }).strict();
const RunsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().min(1).max(64).optional(),
  })
  .strict();

/** `custom` needs its own image; a catalog template brings one, so a second image is a mistake. */
function checkImage(f: Pick<ScheduleFields, 'template' | 'docker_image'>): void {
  if (f.template === 'custom' && !f.docker_image) {
    throw new ValidationError('Invalid body: docker_image is required when template is custom.', [
      { path: 'docker_image', message: 'required when template is custom' },
    ]);
  }
  if (f.template !== 'custom' && f.docker_image) {
    throw new ValidationError(
      `Invalid body: docker_image is used only with template custom (${f.template} brings its own image).`,
      [{ path: 'docker_image', message: 'only used with template custom' }],
    );
  }
}

/**
 * A schedule's startup script is what runs on its instances, often with tokens in it: it is sealed at rest
 * (src/domain/startup-script.ts) and opened only for a key that can write schedules; a key that cannot (a
 * read-only dashboard key) sees `null` in its place.
 */
function visibleTo<T extends { startup_script: string | null }>(
  vault: Pick<KeyVault, 'open'>,
  apiKey: ApiKeyRow,
  record: T,
): T {
  if (!apiKey.scopes.includes('schedules:write') || record.startup_script === null)
    return { ...record, startup_script: null };
  return { ...record, startup_script: openStartupScript(vault, apiKey.account_id, record.startup_script) };
}

export interface ScheduleDeps {
  /** Reads (records and runs). */
  queries: ScheduleQueries;
  /** Create, PUT and DELETE: the row and its Temporal Schedule kept in step. */
  schedules: ScheduleSync;
  /** A run now, through the schedule's own Temporal Schedule. */
  workflows: Pick<ScheduleClient, 'trigger'>;
  /** The shortest gap a cron may leave between firings (SCHEDULE_MIN_INTERVAL). */
  minIntervalMs: number;
  /** Seals startup scripts at rest and opens them for keys that may see them. */
  vault: Pick<KeyVault, 'seal' | 'open'>;
}

/** A cron that fires more often than the minimum interval is refused (400, naming both gaps). */
function checkInterval(cron: string, minIntervalMs: number): void {
  const gapMs = shortestGapMs(cron);
  if (gapMs >= minIntervalMs) return;
  const minutes = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);
  const message =
    `fires ${minutes(gapMs)} apart at times; ` + `schedules may fire at most once every ${minutes(minIntervalMs)}`;
  throw new ValidationError(`Invalid body: cron ${message}.`, [{ path: 'cron', message }]);
}

export function registerScheduleRoutes(api: ApiRouter, deps: ScheduleDeps): void {
  const { queries, workflows } = deps;

  async function findOr404(accountId: string, id: string, conn?: CommonQueryMethods): Promise<ScheduleRow> {
    const row = await queries.find(accountId, id, conn);
    if (!row) throw new NotFoundError(`No schedule ${id}.`);
    return row;
  }

  api.add({
    method: 'post',
    path: '/v1/schedules',
    tag: 'Schedules',
    summary: 'Create a scheduled GPU job (a Temporal Schedule firing on a five-field UTC cron)',
    description:
      'Each firing picks the cheapest available offer for `gpu` among the connected providers that can run the job, ' +
      'launches it, and ends it at the earliest of: the job ending, max_duration_hours after it started running, the ' +
      'moment its cost would exceed max_cost.',
    auth: true,
    body: CreateBody,
    responses: { 201: { description: 'The created schedule', schema: ScheduleRecord } },
    errors: [422, 503],
    handler: async ({ body, accountId, apiKey }) => {
      const f: ScheduleFields = {
        name: body.name,
        gpu: body.gpu,
        template: body.template,
        cron: body.cron.trim().split(/\s+/).join(' '),
        max_duration_hours: body.max_duration_hours ?? null,
        max_cost_micros: body.max_cost === undefined ? null : dollarsToMicros(body.max_cost),
        prefer_spot: body.prefer_spot,
        docker_image: body.docker_image ?? null,
        startup_script:
          body.startup_script === undefined ? null : sealStartupScript(deps.vault, accountId, body.startup_script),
        status: 'active',
        idle_stop: body.idle_stop ?? null,
      };
      checkImage(f);
      checkInterval(f.cron, deps.minIntervalMs);
      // The creating key is recorded: its runs are admitted against its spend cap (docs/interfaces.md).
      const created = await deps.schedules.create(accountId, f, apiKey.id);
      return { status: 201, body: visibleTo(deps.vault, apiKey, toScheduleRecord(created)) };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/schedules',
    tag: 'Schedules',
    summary: 'List schedules, newest first',
    description: '`limit` (default 50, max 200) and `cursor` page.',
    auth: true,
    query: ListQuery,
    responses: { 200: { description: 'A page of schedules', schema: pageOf(ScheduleRecord) } },
    handler: async ({ query, accountId, apiKey }) => {
      const now = new Date();
      const page = await queries.list(accountId, query);
      return { body: { ...page, data: page.data.map((r) => visibleTo(deps.vault, apiKey, toScheduleRecord(r, now))) } };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/schedules/{id}',
    tag: 'Schedules',
    summary: 'One schedule',
    auth: true,
    params: IdParams,
    responses: { 200: { description: 'The schedule', schema: ScheduleRecord } },
    handler: async ({ params, accountId, apiKey }) => ({
      body: visibleTo(deps.vault, apiKey, toScheduleRecord(await findOr404(accountId, params.id))),
    }),
  });

  api.add({
    method: 'put',
    path: '/v1/schedules/{id}',
    tag: 'Schedules',
    summary: 'Change any create field, or status (active | paused)',
    description:
      'Applied to the row and the Temporal Schedule together: when the engine refuses or cannot be reached, ' +
      'neither changes (503). ' +
      'Changes to gpu, limits, image or script apply from the next run; `paused` stops firings until `active` again.',
    auth: true,
    params: IdParams,
    body: UpdateBody,
    responses: { 200: { description: 'The updated schedule', schema: ScheduleRecord } },
    errors: [503],
    handler: async ({ params, body, accountId, apiKey }) => {
      // The replacing key becomes the schedule's key: its runs are admitted against that key's cap from now on.
      const row = await deps.schedules.update(accountId, params.id, apiKey.id, (current) => {
        const pick = <K extends keyof typeof body>(k: K, fallback: unknown) =>
          body[k] === undefined ? fallback : body[k];
        const f: ScheduleFields = {
          name: pick('name', current.name) as string,
          gpu: pick('gpu', current.gpu) as string,
          template: pick('template', current.template) as string,
          cron: body.cron === undefined ? current.cron : body.cron.trim().split(/\s+/).join(' '),
          max_duration_hours: pick('max_duration_hours', current.max_duration_hours) as number | null,
          max_cost_micros:
            body.max_cost === undefined
              ? current.max_cost_micros
              : body.max_cost === null
                ? null
                : dollarsToMicros(body.max_cost),
          prefer_spot: pick('prefer_spot', current.prefer_spot) as boolean,
          docker_image: pick('docker_image', current.docker_image) as string | null,
          startup_script:
            body.startup_script === undefined
              ? current.startup_script
              : body.startup_script === null
                ? null
                : sealStartupScript(deps.vault, accountId, body.startup_script),
          status: pick('status', current.status) as ScheduleFields['status'],
          idle_stop: pick('idle_stop', current.idle_stop) as ScheduleFields['idle_stop'],
        };
        // Switching to a catalog template drops a custom image rather than refusing the change.
        if (body.template !== undefined && body.template !== 'custom' && body.docker_image === undefined)
          f.docker_image = null;
        checkImage(f);
        if (body.cron !== undefined) checkInterval(f.cron, deps.minIntervalMs);
        return f;
      });
      return { body: visibleTo(deps.vault, apiKey, toScheduleRecord(row)) };
    },
  });

  api.add({
    method: 'delete',
    path: '/v1/schedules/{id}',
    tag: 'Schedules',
    summary:
      'Delete a schedule: its Temporal Schedule is deleted and a live run ends (`cancelled`, instance terminated)',
    auth: true,
    params: IdParams,
    responses: { 200: { description: 'Deleted', schema: Deleted } },
    errors: [503],
    handler: async ({ params, accountId }) => {
      await deps.schedules.delete(accountId, params.id);
      return { body: { id: params.id, deleted: true } };
    },
  });

  api.add({
    method: 'post',
    path: '/v1/schedules/{id}/trigger',
    tag: 'Schedules',
    summary: 'Start a run now (beyond the spec); a run still live makes it `skipped`, as for any firing',
    auth: true,
    params: IdParams,
    responses: {
      202: {
        description: 'The run was started; it shows up in GET /v1/schedules/{id}/runs',
        schema: z.object({ schedule_id: z.string(), triggered_at: isoTimestamp }),
      },
    },
    errors: [503],
    handler: async ({ params, accountId, apiKey }) => {
      // A trigger starts compute now, so the key must be allowed to launch, not only to edit schedules.
      if (!apiKey.scopes.includes('compute:write')) {
        throw new ForbiddenError(
          'This API key lacks the scope "compute:write" that POST /v1/schedules/{id}/trigger needs as well as ' +
            '"schedules:write": a trigger launches an instance.',
        );
      }
      const row = await findOr404(accountId, params.id);
      await workflows.trigger(row.id);
      return { status: 202, body: { schedule_id: row.id, triggered_at: new Date().toISOString() } };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/schedules/{id}/runs',
    tag: 'Schedules',
    summary: 'Run history of a schedule, newest first (paged with limit and cursor)',
    auth: true,
    params: IdParams,
    query: RunsQuery,
    responses: {
      200: {
        description: 'Runs',
        schema: z.object({ data: z.array(RunRecord), has_more: z.boolean(), next_cursor: z.string().nullable() }),
      },
    },
    handler: async ({ params, query, accountId }) => {
      await findOr404(accountId, params.id);
      let before: number | undefined;
      if (query.cursor !== undefined) {
        const seq = decodeRunCursor(query.cursor);
        if (seq === null)
          throw new ValidationError('Invalid query: cursor is not a next_cursor this API returned.', [
            { path: 'query.cursor', message: 'unknown cursor' },
          ]);
        before = seq;
      }
      const page = await queries.listRuns(accountId, params.id, { limit: query.limit, before });
      return { body: { data: page.runs.map(toRunRecord), has_more: page.has_more, next_cursor: page.next_cursor } };
    },
  });
}
