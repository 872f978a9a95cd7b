import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { JobQueries, JobRow, JobSpec, TokenRefusal } from '../../db/queries/jobs';
import type { ScheduleQueries } from '../../db/queries/schedules';
import type { SshKeyQueries } from '../../db/queries/ssh-keys';
import { randomToken } from '../../domain/ids';
import type { KeyVault } from '../../domain/key-vault';
import { dollarsToMicros } from '../../domain/money';
import { isSealedText, sealText } from '../../domain/sealed-text';
import { openStartupScript } from '../../domain/startup-script';
import type { ApiKeyRow } from '../../db/queries/api-keys';
import {
  ConflictError,
  NotFoundError,
  UnauthenticatedError,
  UnsupportedOperationError,
  ValidationError,
} from '../../errors';
import { JOB_PROVIDERS, jobProviderReadiness } from '../../jobs/providers';
import { envSealContext, hashExitToken } from '../../jobs/start-command';
import type { ProviderCredentials } from '../../providers/provider-credentials';
import type { ProviderId } from '../../providers/types';
import { boundedLiveTail, LIVE_TAIL_MAX_BYTES, LIVE_TAIL_MAX_LINES, type LogLibrary } from '../../jobs/logs';
import type { JobClient } from '../../workflow-clients/jobs';
import { CreateBody, durationMs, ExitBody, IdParams, JobListQuery, TailBody } from '../job-schemas';
import { answerLogs, LOG_RESPONSES, LogQuery } from '../log-stream';
import { pageOf } from '../paging';
import { JobRecord, toJobRecord } from '../records/jobs';
import type { ApiRouter } from '../route';

/** The refusal of an exit report or a shipped tail that changed nothing. */
function refusalOf(refused: TokenRefusal): Error {
  if (refused === 'unknown_token') return new UnauthenticatedError('Unknown exit token.');
  return new ConflictError(
    refused === 'already_reported' ? 'This attempt has reported its exit already.' : 'This attempt has ended.',
  );
}

/** What the schedule's sealed startup script shows as a run's job command to a key that may not write schedules. */
export const HIDDEN_SCHEDULE_SCRIPT = "(the schedule's startup script: shown to keys with schedules:write)";

/**
 * A job's command as `apiKey` may see it: the command given to POST /v1/jobs as it was; a schedule run's
 * command (the schedule's startup script, sealed at rest) opened for a key that may write schedules, hidden
 * otherwise, as on the schedule itself.
 */
function shownCommand(vault: Pick<KeyVault, 'open'>, apiKey: ApiKeyRow) {
  return (stored: string) => {
    if (!isSealedText(stored)) return stored;
    return apiKey.scopes.includes('schedules:write')
      ? openStartupScript(vault, apiKey.account_id, stored)
      : HIDDEN_SCHEDULE_SCRIPT;
  };
}

export interface JobRouteDeps {
  jobs: JobQueries;
  offers: Pick<ScheduleQueries, 'findRunOffers'>;
  credentials: Pick<ProviderCredentials, 'findApiKey'>;
  sshKeys: Pick<SshKeyQueries, 'findDefaultSshKey'>;
  vault: Pick<KeyVault, 'seal' | 'open'>;
  workflows: JobClient;
  /** Attempts' logs (the provider's, or the tail the job reported), and the follow's keep-alive interval. */
  logs: { library: LogLibrary; keepAliveMs: number };
}

export function registerJobRoutes(api: ApiRouter, deps: JobRouteDeps): void {
  const { jobs } = deps;
  const shownTo = (apiKey: ApiKeyRow) => shownCommand(deps.vault, apiKey);

  async function findOr404(accountId: string, id: string): Promise<JobRow> {
    const row = await jobs.find(accountId, id);
    if (!row) throw new NotFoundError(`No job ${id}.`);
    return row;
  }

  api.add({
    method: 'post',
    path: '/v1/jobs',
    tag: 'Jobs',
    summary: 'Run a command on the cheapest admitted GPU until it exits, relaunching it as its retry policy says',
    description:
      'Every attempt is a managed instance admitted like a launch. The command runs inside a wrapper that reports ' +
      'its exit code; the instance is then ended at once. Send an Idempotency-Key header to make retries safe (same ' +
      'key and body: the same job; another body: 409).',
    auth: true,
    scope: 'compute:write',
    body: CreateBody,
    responses: {
      201: { description: 'The job', schema: JobRecord },
      200: { description: 'The job made earlier with this Idempotency-Key', schema: JobRecord },
    },
    errors: [409, 422, 503],
    handler: async ({ body, accountId, apiKey, ctx }) => {
      const sent = ctx.get('idempotency-key');
      if (sent && !/^[A-Za-z0-9_.:-]{1,100}$/.test(sent))
        throw new ValidationError('Idempotency-Key must be 1-100 characters of letters, digits, _ . : -');
      if ((body.template === undefined) === (body.docker_image === undefined)) {
        throw new ValidationError('Invalid body: send exactly one of template and docker_image.', [
          { path: 'template', message: 'exactly one of template and docker_image' },
        ]);
      }
      const idempotencyKey = sent || `gen_${randomToken(96)}`;
      const connected: ProviderId[] = [];
      let lambdaWithoutKey = false;
      for (const p of body.providers ?? JOB_PROVIDERS) {
        if (!JOB_PROVIDERS.includes(p)) {
          throw new UnsupportedOperationError(`Invalid body: ${p} cannot run jobs (no start command).`, [
            { path: 'providers', message: `${p} cannot run jobs` },
          ]);
        }
        const readiness = await jobProviderReadiness(deps, accountId, p);
        // Asked for by name, Lambda without an SSH key is refused; left to the default, it is left out.
        if (readiness === 'no_ssh_key' && body.providers) {
          throw new UnsupportedOperationError(
            'Invalid body: a job runs on Lambda only with a default SSH key (POST /v1/ssh-keys): ' +
              'Lambda launches no instance without one.',
            [{ path: 'providers', message: 'lambda needs a default SSH key' }],
          );
        }
        if (readiness === 'ready') connected.push(p);
        lambdaWithoutKey ||= readiness === 'no_ssh_key';
      }
      if (connected.length === 0) {
        const why = lambdaWithoutKey ? '; Lambda also needs a default SSH key (POST /v1/ssh-keys)' : '';
        throw new UnsupportedOperationError(`No allowed provider is connected (POST /v1/settings/providers)${why}.`, [
          { path: 'providers', message: 'none connected' },
        ]);
      }
      const retry = body.retry ?? { on: ['no_capacity', 'preemption'] as const, max_attempts: 3, within: '2h' };
      const spec: JobSpec = {
        gpu: body.gpu,
        gpu_count: body.gpu_count,
        template: body.template ?? null,
        docker_image: body.docker_image ?? null,
        command: body.command,
        env_keys: Object.keys(body.env ?? {}).sort(),
        providers: connected,
        spot_policy: body.spot_policy,
        max_price_per_hour_micros:
          body.max_price_per_hour === undefined ? null : dollarsToMicros(body.max_price_per_hour),
        max_cost_micros: body.max_cost === undefined ? null : dollarsToMicros(body.max_cost),
        max_duration_hours: body.max_duration_hours ?? null,
        retry: {
          on: [...retry.on],
          max_attempts: retry.max_attempts,
          within_ms: durationMs(retry.within),
          on_demand_after_preemptions:
            'on_demand_after_preemptions' in retry ? (retry.on_demand_after_preemptions ?? null) : null,
        },
        idle_stop: body.idle_stop ?? null,
      };
      if (spec.max_cost_micros !== null) {
        // One minute of the cheapest offer the job may run on: a budget below it cannot pay for any attempt.
        const offers = (
          await deps.offers.findRunOffers(spec.gpu, connected, spec.spot_policy !== 'on-demand', new Date())
        )
          .filter((o) =>
            o.spot ? spec.spot_policy !== 'on-demand' && o.provider === 'vastai' : spec.spot_policy !== 'spot',
          )
          .map((o) => o.pricePerHourMicros * spec.gpu_count);
        const cheapest = offers.length ? Math.min(...offers) : null;
        if (cheapest !== null && spec.max_cost_micros < Math.ceil(cheapest / 60)) {
          const minute = Math.ceil(cheapest / 60) / 1_000_000;
          throw new UnsupportedOperationError(
            `Invalid body: max_cost $${spec.max_cost_micros / 1_000_000} is below one minute ($${minute}) of the ` +
              `cheapest allowed offer ($${cheapest / 1_000_000}/h).`,
            [
              {
                path: 'max_cost',
                message: `below one minute of the cheapest allowed offer: $${minute} at $${cheapest / 1_000_000}/h`,
              },
            ],
          );
        }
      }
      const requestHash = createHash('sha256')
        .update(JSON.stringify({ ...body, env: body.env ?? null }))
        .digest('hex');
      const id = `job_${randomToken(128)}`;
      const envSealed =
        body.env && Object.keys(body.env).length
          ? sealText(deps.vault, JSON.stringify(body.env), envSealContext(id))
          : null;
      const { job, created } = await jobs.insert({
        id,
        accountId,
        apiKeyId: apiKey.id,
        idempotencyKey,
        requestHash,
        name: body.name ?? `job-${id.slice(4, 12)}`,
        spec,
        envSealed,
      });
      if (job.request_hash !== requestHash)
        throw new ConflictError('This Idempotency-Key was used with a different request body.');
      try {
        await deps.workflows.start(job.id, accountId);
      } catch (err) {
        if (created) await jobs.discard(accountId, job.id);
        throw err;
      }
      return {
        status: created ? 201 : 200,
        body: toJobRecord(job, []),
        headers: { 'Idempotency-Key': idempotencyKey },
      };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/jobs',
    tag: 'Jobs',
    summary: 'List jobs, newest first (`?status=` filters)',
    auth: true,
    query: JobListQuery,
    responses: { 200: { description: 'A page of jobs', schema: pageOf(JobRecord) } },
    handler: async ({ query, accountId, apiKey }) => {
      const page = await jobs.list(accountId, query);
      return { body: { ...page, data: page.data.map((j) => toJobRecord(j, undefined, shownTo(apiKey))) } };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/jobs/{id}',
    tag: 'Jobs',
    summary: 'One job with its attempts (provider, instance, price, start, end, end reason, exit code, cost)',
    auth: true,
    params: IdParams,
    responses: { 200: { description: 'The job', schema: JobRecord } },
    handler: async ({ params, accountId, apiKey }) => {
      const job = await findOr404(accountId, params.id);
      return { body: toJobRecord(job, await jobs.attempts(job.id), shownTo(apiKey)) };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/jobs/{id}/logs',
    tag: 'Jobs',
    summary: "An attempt's output: its last lines, or followed (`follow=true`) while it runs",
    description:
      'The latest attempt unless `attempt` names one. ' +
      'RunPod and Vast.ai answer from the provider while it still has the ' +
      'instance; after that, and on Lambda, the tail the job reported with its exit (the last 4 KiB). ' +
      'The env values of the job are never printed by the service.',
    auth: true,
    params: IdParams,
    query: LogQuery.extend({
      attempt: z.coerce.number().int().min(1).optional().describe('the attempt number (default the latest)'),
    }),
    responses: LOG_RESPONSES,
    errors: [502, 503],
    handler: async ({ params, query, accountId, ctx }) => {
      const target = await deps.logs.library.jobTarget(accountId, params.id, query.attempt);
      return answerLogs(ctx, deps.logs.library, target, query, deps.logs.keepAliveMs);
    },
  });

  api.add({
    method: 'post',
    path: '/v1/jobs/{id}/cancel',
    tag: 'Jobs',
    summary: 'Cancel a job: its live attempt is terminated and the job ends `cancelled`',
    auth: true,
    scope: 'compute:write',
    params: IdParams,
    responses: {
      202: { description: 'The cancel was sent; the job shows `cancelled` once its instance ended', schema: JobRecord },
    },
    errors: [409, 503],
    handler: async ({ params, accountId, apiKey }) => {
      const job = await findOr404(accountId, params.id);
      if (job.status === 'succeeded' || job.status === 'failed' || job.status === 'cancelled')
        throw new ConflictError(`Job ${job.id} has ended (${job.status}).`);
      await deps.workflows.cancel(job.id, 'cancelled through the API');
      return { status: 202, body: toJobRecord(job, undefined, shownTo(apiKey)) };
    },
  });

  api.add({
    method: 'post',
    path: '/v1/jobs/exit',
    tag: 'Jobs',
    summary: "The job wrapper's exit report: the command's exit code and output tail, with the attempt's one-use token",
    description:
      'Sent by the wrapper on the instance, not by users. A wrong token is 401, ' +
      'a used one (or an attempt already ended) 409; neither changes anything.',
    auth: false,
    body: ExitBody,
    responses: {
      202: {
        description: 'Recorded; the instance is being ended',
        schema: z.object({ job_id: z.string(), attempt: z.number(), exit_code: z.number() }),
      },
    },
    errors: [401, 409, 503],
    handler: async ({ body }) => {
      const outcome = await jobs.recordExitReport(hashExitToken(body.token), {
        exitCode: body.exit_code,
        tail: body.tail,
      });
      if ('refused' in outcome) throw refusalOf(outcome.refused);
      const a = outcome.recorded;
      await deps.workflows.exitReported({
        jobId: a.job_id,
        n: a.n,
        exitCode: body.exit_code,
        instanceRowId: a.instance_row_id,
      });
      return { status: 202, body: { job_id: a.job_id, attempt: a.n, exit_code: body.exit_code } };
    },
  });

  api.add({
    method: 'post',
    path: '/v1/jobs/tail',
    tag: 'Jobs',
    summary: "The job wrapper's tail while the command runs, with the attempt's exit token",
    description:
      'Sent by the wrapper on the instance every GPUO_TAIL_INTERVAL seconds, not by users. The latest tail is ' +
      `kept (its last ${LIVE_TAIL_MAX_LINES} lines, at most ${LIVE_TAIL_MAX_BYTES / 1024} KiB) and is what the ` +
      'logs of an attempt on Lambda show while it runs. A wrong token is 401; once the attempt reported its exit or ' +
      'ended, 409; neither changes anything.',
    auth: false,
    body: TailBody,
    responses: {
      202: {
        description: 'Kept until a newer tail or the exit report',
        schema: z.object({ job_id: z.string(), attempt: z.number() }),
      },
    },
    errors: [401, 409, 503],
    handler: async ({ body }) => {
      const outcome = await jobs.recordLiveTail(hashExitToken(body.token), boundedLiveTail(body.tail));
      if ('refused' in outcome) throw refusalOf(outcome.refused);
      return { status: 202, body: { job_id: outcome.recorded.job_id, attempt: outcome.recorded.n } };
    },
  });
}
