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
import { GpuoError, type GpuoClient, type LaunchBody, type PlanBody } from '../../../sdk/src';
import { LaunchBody as LaunchSchema, PlanSearchBody } from '../../http/launch-schemas';
import { readConfig } from './config';
import { connect } from './api';
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
    { description: `The account's instances across providers, with status and price. ${bounds}`, inputSchema: {} },
    () => tool(async () => ok(await sdk.instances())),
  );

  const lifecycle = { id: z.string().min(1).max(128).describe('the instance id list_instances shows') };
  server.registerTool(
    'stop_instance',
    {
      description: `Stop an instance (RunPod only; the others are terminated instead). ${bounds}`,
      inputSchema: lifecycle,
    },
    ({ id }) => tool(async () => ok(await sdk.stop(id))),
  );
  server.registerTool(
    'terminate_instance',
    {
      description: `Terminate an instance: it stops costing money and cannot be restarted. ${bounds}`,
      inputSchema: lifecycle,
    },
    ({ id }) => tool(async () => ok(await sdk.terminate(id))),
  );
  server.registerTool(
    'spend_summary',
    { description: `This UTC month's instance charges and the balance. ${bounds}`, inputSchema: {} },
    () => tool(async () => ok(await spendSummary(sdk))),
  );

  await server.connect(new StdioServerTransport());
}
