/**
 * `gpuo mcp`: an MCP server on stdio (the official @modelcontextprotocol/sdk) that lets an AI agent list
 * offers, plan, launch, list, stop and terminate instances and read the spend summary, through the typed SDK
 * with the logged-in key. Input schemas are built from the API's own zod schemas (src/http/launch-schemas.ts).
 * Every launch is planned first and its answer names the price; the key's scopes and spend cap bound the
 * agent, and every tool description says so.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { GpuoError, newIdempotencyKey, type GpuoClient, type LaunchBody, type PlanBody } from '../../../sdk/src';
import { LaunchBody as LaunchSchema, PlanSearchBody } from '../../http/launch-schemas';
import { readConfig } from './config';
import { call, connect } from './api';
import { spendSummary } from './commands';

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };
const ok = (value: unknown, summary?: string): ToolResult => ({
  content: [{ type: 'text', text: (summary ? summary + '\n' : '') + JSON.stringify(value, null, 2) }],
});
const refused = (text: string): ToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** Runs a tool; an API refusal becomes a tool error naming the code and the API's message (the reason). */
async function tool(run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof GpuoError) return refused(`${err.code} (HTTP ${err.status}): ${err.message}`);
    return refused(`error: ${(err as Error).message}`);
  }
}

/** What bounds the agent: the key's scopes and spend cap, as the API lists them (by the key's prefix). */
async function keyBounds(sdk: GpuoClient): Promise<string> {
  const { api_key } = await readConfig();
  try {
    const mine = (await sdk.apiKeys()).data.find((k) => api_key?.startsWith(k.key_prefix));
    if (!mine) return 'The API key this server uses bounds what you can do.';
    const cap = mine.spend_limit
      ? `a spend cap of $${mine.spend_limit.amount} per ${mine.spend_limit.period} (UTC)`
      : 'no spend cap of its own (the account balance still applies)';
    return (
      `This server acts with the API key "${mine.name}": scopes ${mine.scopes.join(', ')}; ${cap}. ` +
      'Calls outside those scopes, and launches past the cap or the balance, are refused by the API.'
    );
  } catch {
    return 'The API key this server uses bounds what you can do: its scopes and spend cap are enforced by the API.';
  }
}

const launchShape = LaunchSchema.innerType().shape;

/** MCP's tool annotations: what a client may assume about a tool before it asks the user. */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: true } as const;
/** Starts paid work at a provider (an instance, a job's attempts): it costs money until it ends. */
const SPENDS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;
/** Ends an instance: what ran on it stops. */
const ENDS = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true } as const;

const jobId = z.string().min(1).max(100).describe('the job id run_job answered (job_…)');

export async function serveMcp(): Promise<void> {
  const sdk = await connect();
  const bounds = await keyBounds(sdk);
  const server = new McpServer({ name: 'gpuo', version: '0.1.0' });

  server.registerTool(
    'list_offers',
    {
      description:
        'GPU offers and prices across RunPod, Vast.ai and Lambda; with gpu_type, that type across providers. ' + bounds,
      inputSchema: { gpu_type: PlanSearchBody.shape.gpu_type.optional() },
      annotations: READ_ONLY,
    },
    ({ gpu_type }) => tool(async () => ok(await sdk.offers(gpu_type))),
  );

  server.registerTool(
    'plan_launch',
    {
      description:
        'What a launch would cost and whether it would be admitted, creating nothing. ' +
        'With provider: that launch (price_per_hour, warnings, admitted or the refusal). ' +
        `Without provider: ranked candidates across providers, each with a ready launch body. ${bounds}`,
      inputSchema: {
        ...launchShape,
        provider: launchShape.provider.optional(),
        providers: PlanSearchBody.shape.providers,
        max_price_per_hour: PlanSearchBody.shape.max_price_per_hour,
      },
      annotations: READ_ONLY,
    },
    (input) =>
      tool(async () => {
        const { providers, max_price_per_hour, ...launch } = input;
        const body: PlanBody = launch.provider
          ? (launch as LaunchBody)
          : {
              gpu_type: launch.gpu_type,
              gpu_count: launch.gpu_count,
              spot: launch.spot,
              ...(providers ? { providers } : {}),
              ...(max_price_per_hour ? { max_price_per_hour } : {}),
            };
        return ok(await sdk.plan(body));
      }),
  );

  server.registerTool(
    'launch_instance',
    {
      description:
        'Launch a GPU instance. It is planned first: ' +
        'a launch the plan refuses is not attempted (the refusal says why), ' +
        'and one above max_price_per_hour is not launched. The answer names the hourly price. ' +
        `This costs money until the instance is terminated. ${bounds}`,
      inputSchema: {
        ...launchShape,
        max_price_per_hour: z
          .number()
          .gt(0)
          .optional()
          .describe('refuse to launch above this price, dollars per hour for the whole instance'),
      },
      annotations: SPENDS,
    },
    (input) =>
      tool(async () => {
        const { max_price_per_hour, ...body } = input;
        const planned = (await sdk.plan(body as LaunchBody)) as {
          admitted: boolean;
          price_per_hour: number | null;
          refusal: { code: string; status: number; message: string } | null;
        };
        if (!planned.admitted)
          return refused(`${planned.refusal!.code} (HTTP ${planned.refusal!.status}): ${planned.refusal!.message}`);
        if (
          max_price_per_hour !== undefined &&
          planned.price_per_hour !== null &&
          planned.price_per_hour > max_price_per_hour
        ) {
          return refused(
            `not launched: the price is $${planned.price_per_hour}/h, ` +
              `above max_price_per_hour $${max_price_per_hour}/h`,
          );
        }
        const instance = await sdk.launch(body as LaunchBody);
        return ok(
          instance,
          `Launched ${instance.id} on ${instance.provider} ` +
            `at $${instance.price_per_hour ?? planned.price_per_hour}/h ` +
            `(planned at $${planned.price_per_hour}/h). Terminate it when done.`,
        );
      }),
  );

  server.registerTool(
    'list_instances',
    {
      description: `The account's instances across providers, with status and price. ${bounds}`,
      inputSchema: {},
      annotations: READ_ONLY,
    },
    () => tool(async () => ok(await sdk.instances())),
  );

  const lifecycle = { id: z.string().min(1).max(128).describe('the instance id list_instances shows') };
  server.registerTool(
    'stop_instance',
    {
      description: `Stop an instance (RunPod only; the others are terminated instead). ${bounds}`,
      inputSchema: lifecycle,
      annotations: ENDS,
    },
    ({ id }) => tool(async () => ok(await sdk.stop(id))),
  );
  server.registerTool(
    'terminate_instance',
    {
      description: `Terminate an instance: it stops costing money and cannot be restarted. ${bounds}`,
      inputSchema: lifecycle,
      annotations: ENDS,
    },
    ({ id }) => tool(async () => ok(await sdk.terminate(id))),
  );
  server.registerTool(
    'spend_summary',
    {
      description: `This UTC month's instance charges and the balance. ${bounds}`,
      inputSchema: {},
      annotations: READ_ONLY,
    },
    () => tool(async () => ok(await spendSummary(sdk))),
  );

  registerJobTools(server, sdk, bounds);
  await server.connect(new StdioServerTransport());
}

/** run_job, job_status and job_logs. */
function registerJobTools(server: McpServer, sdk: GpuoClient, bounds: string): void {
  server.registerTool(
    'run_job',
    {
      description:
        'Run a command on the cheapest admitted GPU until it exits; ' +
        'the instance is ended at once when it does, and the job ' +
        'is relaunched after a preemption. Every attempt costs money while it runs; max_cost bounds the whole job. ' +
        `Follow it with job_status and job_logs. ${bounds}`,
      inputSchema: {
        gpu: z.string().min(1).max(64).describe('a GPU slug, e.g. rtx-4090 (list_offers shows them)'),
        command: z.string().min(1).max(16_384).describe('what runs, as sh -c text'),
        template: z.string().optional().describe('a template slug (or docker_image)'),
        docker_image: z.string().optional().describe('an image reference (or template)'),
        providers: z.array(z.enum(['runpod', 'vastai', 'lambda'])).optional(),
        spot_policy: z.enum(['spot', 'on-demand', 'auto']).optional(),
        max_cost: z.number().positive().optional().describe('dollars for the whole job, every attempt together'),
        max_duration_hours: z.number().positive().optional().describe('per attempt'),
      },
      annotations: SPENDS,
    },
    (input) =>
      tool(async () => {
        const body = { ...input, ...(input.template || input.docker_image ? {} : { template: 'pytorch' }) };
        const job = await call(
          sdk.raw.POST('/v1/jobs', { body: body as never, headers: { 'Idempotency-Key': newIdempotencyKey() } }),
        );
        return ok(job, `Started job ${job.id}: ${job.status}. It costs money until it ends.`);
      }),
  );
  server.registerTool(
    'job_status',
    {
      description:
        'A job with its attempts: status, exit code, error, cost, ' +
        `and per attempt the provider and end reason. ${bounds}`,
      inputSchema: { id: jobId },
      annotations: READ_ONLY,
    },
    ({ id }) => tool(async () => ok(await call(sdk.raw.GET('/v1/jobs/{id}', { params: { path: { id } } })))),
  );
  server.registerTool(
    'job_logs',
    {
      description: `The last lines of a job's attempt (the latest unless attempt is given). ${bounds}`,
      inputSchema: {
        id: jobId,
        attempt: z.number().int().min(1).optional(),
        tail: z.number().int().min(0).max(5000).optional().describe('lines (default 100)'),
      },
      annotations: READ_ONLY,
    },
    ({ id, attempt, tail }) =>
      tool(async () => {
        const text = await sdk.jobLogs(id, {
          ...(attempt ? { attempt } : {}),
          ...(tail !== undefined ? { tail } : {}),
        });
        return { content: [{ type: 'text', text: text || '(no output yet)' }] };
      }),
  );
}
