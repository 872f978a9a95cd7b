/** `POST /v1/compute/launch` and the lifecycle of an instance (stop, start, terminate): parse, ask, answer. */
import { z } from 'zod';
import type { InstanceQueries } from '../../db/queries/instances';
import { randomToken } from '../../domain/ids';
import { NotFoundError, UnsupportedOperationError, ValidationError } from '../../errors';
import type { LogLibrary } from '../../jobs/logs';
import type { LaunchLibrary } from '../../launch/launches';
import type { InstanceClient } from '../../workflow-clients/instances';
import { LaunchBody } from '../launch-schemas';
import { InstanceRecord, toInstanceRecord } from '../records/instances';
import type { ApiRouter } from '../route';
import { pathId } from '../text';
import { answerLogs, LOG_RESPONSES, LogQuery } from '../log-stream';

const InstanceParams = z.object({ provider_instance_id: pathId(128) }).strict();

export interface ComputeDeps {
  /** Launches: policy, admission and the workflow (src/launch). */
  launches: Pick<LaunchLibrary, 'launch' | 'admitStart'>;
  /** Stops, starts and terminates. */
  workflows: Pick<InstanceClient, 'end' | 'start'>;
  instances: Pick<InstanceQueries, 'findByProviderId'>;
  /** Instances' logs, and the follow's keep-alive interval. */
  logs: { library: LogLibrary; keepAliveMs: number };
}

export function registerComputeRoutes(api: ApiRouter, deps: ComputeDeps): void {
  api.add({
    method: 'post',
    path: '/v1/compute/launch',
    tag: 'Compute',
    summary: 'Launch a GPU instance',
    description:
      'Answers 201 once the provider accepted the create; the launchInstance workflow waits for running, meters and ' +
      'emits events. Send an Idempotency-Key header to make retries safe: the same key and body replay the first ' +
      'answer, another body is 409.',
    auth: true,
    body: LaunchBody,
    responses: {
      201: {
        description: 'The launched instance',
        schema: InstanceRecord,
        headers: {
          'Idempotency-Key':
            'the key of this launch (generated when none was sent): retry with it to get the same instance',
        },
      },
    },
    errors: [402, 409, 422, 429, 502, 503],
    handler: async ({ body, accountId, apiKey, ctx }) => {
      const idempotencyKey = ctx.get('idempotency-key');
      if (idempotencyKey && !/^[A-Za-z0-9_.:-]{1,100}$/.test(idempotencyKey)) {
        throw new ValidationError('Idempotency-Key must be 1-100 characters of letters, digits, _ . : -');
      }
      // Echoed (generated when absent) so a client that got no answer can retry the same launch safely.
      const key = idempotencyKey || `gen_${randomToken(96)}`;
      ctx.set('Idempotency-Key', key);
      const row = await deps.launches.launch({ accountId, idempotencyKey: key, apiKeyId: apiKey.id, body });
      return { status: 201, body: toInstanceRecord(row) };
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
            'The provider has not confirmed within the answer bound (slow, unreachable, key removed); the request is ' +
            'kept and retried by the instance workflow, and the record says why in `warnings`',
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

  api.add({
    method: 'post',
    path: '/v1/compute/{provider_instance_id}/start',
    tag: 'Compute',
    summary: 'Start a stopped instance again (runpod)',
    description:
      "Admitted like a launch, at the instance's own price: the available balance must cover the admission window of " +
      'every live ' +
      'instance plus this one, and the account must be under its live-instance limit. Metering resumes when the ' +
      'instance is seen running; ' +
      'its storage is charged until then. An instance already running answers as it is; one terminated while its ' +
      'start waited answers ' +
      'with its terminated record.',
    auth: true,
    params: InstanceParams,
    responses: {
      200: { description: 'The instance record, running again', schema: InstanceRecord },
      202: {
        description:
          'The provider accepted the start and the instance is not seen running yet; the record as it stands',
        schema: InstanceRecord,
      },
    },
    errors: [402, 404, 422, 502, 503],
    handler: async ({ params, accountId, apiKey }) => {
      const row = await deps.instances.findByProviderId(accountId, params.provider_instance_id);
      if (!row) throw new NotFoundError(`No instance ${params.provider_instance_id} in this account.`);
      if (row.provider !== 'runpod') {
        throw new UnsupportedOperationError(
          `${row.provider} instances are never stopped (they are terminated), ` +
            `so there is nothing to start; launch a new one.`,
        );
      }
      if (row.status === 'running') return { body: toInstanceRecord(row) };
      if (row.status !== 'stopped')
        throw new UnsupportedOperationError(`Only a stopped instance can be started; this one is ${row.status}.`);
      await deps.launches.admitStart(row, apiKey.id);
      const { row: latest, done } = await deps.workflows.start(row);
      return { status: done ? 200 : 202, body: toInstanceRecord(latest) };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/compute/{provider_instance_id}/logs',
    tag: 'Compute',
    summary: "An instance's container output: its last lines, or followed (`follow=true`) while it runs",
    description:
      "RunPod: the pod's log stream; Vast.ai: the log it uploads on request (a moment's wait). " +
      'Lambda has no log API: ' +
      "a job's instance there answers the tail the job reported, any other is 422. " +
      'An ended instance answers what the ' +
      'provider still has, else the reported tail of the job it ran.',
    auth: true,
    params: InstanceParams,
    query: LogQuery,
    responses: LOG_RESPONSES,
    errors: [422, 502, 503],
    handler: async ({ params, query, accountId, ctx }) => {
      const target = await deps.logs.library.instanceTarget(accountId, params.provider_instance_id);
      return answerLogs(ctx, deps.logs.library, target, query, deps.logs.keepAliveMs);
    },
  });
}
