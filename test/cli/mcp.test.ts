/**
 * `gpuo mcp` driven by the MCP SDK's own client over stdio, against the running service: tools listed with
 * their input schemas and annotations; plan → launch → list → terminate; a launch beyond the key's spend cap
 * is refused with the reason.
 */
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT } from '../helpers/process';
import { startRunningService, type RunningService } from '../helpers/running-service';

jest.setTimeout(120_000);

let svc: RunningService;
beforeAll(async () => {
  svc = await startRunningService();
});
const configDirs: string[] = [];
afterAll(async () => {
  await svc.close();
  await Promise.all(configDirs.map((d) => rm(d, { recursive: true, force: true })));
});

type Result = { content: { type: string; text: string }[]; isError?: boolean };

async function connect(apiKey: string): Promise<Client> {
  const configDir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-mcp-'));
  configDirs.push(configDir);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(REPO_ROOT, 'bin', 'gpuo.js'), 'mcp'],
    cwd: REPO_ROOT,
    env: {
      ...(process.env as Record<string, string>),
      GPUO_API_URL: svc.baseUrl,
      GPUO_API_KEY: apiKey,
      GPUO_CONFIG_DIR: configDir,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const json = (r: Result) => JSON.parse(r.content[0]!.text.slice(r.content[0]!.text.indexOf('{')));

it('lists tools; plan → launch → list → terminate; a launch past the cap is refused, saying why', async () => {
  const a = await svc.t.connectedAccount('runpod');
  const made = await svc.t.http
    .post('/v1/api-keys')
    .set(a.auth)
    .send({ name: 'agent', scopes: ['read', 'compute:write'], spend_limit: { amount: 0.5, period: 'day' } });
  const client = await connect(made.body.api_key);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'job_logs',
      'job_status',
      'launch_instance',
      'list_instances',
      'list_offers',
      'plan_launch',
      'run_job',
      'spend_summary',
      'stop_instance',
      'terminate_instance',
    ]);
    // MCP's annotations tell a client which tools only read and which start paid work or end it.
    const hints = Object.fromEntries(
      tools.map((t) => [t.name, [t.annotations?.readOnlyHint, t.annotations?.destructiveHint]]),
    );
    expect(hints).toEqual({
      job_logs: [true, false],
      job_status: [true, false],
      list_instances: [true, false],
      list_offers: [true, false],
      plan_launch: [true, false],
      spend_summary: [true, false],
      run_job: [false, true],
      launch_instance: [false, true],
      stop_instance: [false, true],
      terminate_instance: [false, true],
    });
    const unknownJob = (await client.callTool({ name: 'job_status', arguments: { id: 'job_nope' } })) as Result;
    expect([unknownJob.isError, unknownJob.content[0]!.text]).toEqual([true, 'not_found (HTTP 404): No job job_nope.']);
    const launchTool = tools.find((t) => t.name === 'launch_instance')!;
    expect(launchTool.inputSchema.required).toEqual(expect.arrayContaining(['provider', 'gpu_type']));
    expect((launchTool.inputSchema.properties as Record<string, { enum?: string[] }>).provider!.enum).toEqual([
      'runpod',
      'vastai',
      'lambda',
    ]);
    for (const t of tools) expect(t.description).toContain('scopes read, compute:write; a spend cap of $0.5 per day');

    const plan = (await client.callTool({
      name: 'plan_launch',
      arguments: { provider: 'runpod', gpu_type: 'rtx-a6000' },
    })) as Result;
    expect(json(plan)).toMatchObject({ admitted: true, price_per_hour: expect.any(Number) });
    const launched = (await client.callTool({
      name: 'launch_instance',
      arguments: { provider: 'runpod', gpu_type: 'rtx-a6000' },
    })) as Result;
    expect(launched.isError).toBeFalsy();
    expect(launched.content[0]!.text).toMatch(
      new RegExp(
        `^Launched \\S+ on runpod at \\$${json(plan).price_per_hour}/h ` +
          `\\(planned at \\$${json(plan).price_per_hour}/h\\)`,
      ),
    );
    const instance = json(launched);

    const listed = (await client.callTool({ name: 'list_instances', arguments: {} })) as Result;
    expect(json(listed).data.map((i: { id: string }) => i.id)).toContain(instance.id);

    // The key's cap ($0.50/day) holds one such instance for its next hour: a second launch is refused, with why.
    const second = (await client.callTool({
      name: 'launch_instance',
      arguments: { provider: 'runpod', gpu_type: 'rtx-a6000' },
    })) as Result;
    expect(second.isError).toBe(true);
    expect(second.content[0]!.text).toMatch(
      /^insufficient_balance \(HTTP 402\): This API key \("agent", gpuo_sk_.{4}…\) is capped at \$0\.50 per day/,
    );
    expect(svc.t.sims.runpod.control.instances(a.simKey)).toHaveLength(1);

    const terminated = (await client.callTool({
      name: 'terminate_instance',
      arguments: { id: instance.id },
    })) as Result;
    expect(terminated.isError).toBeFalsy();
    expect(json(terminated).status).toMatch(/terminat/);
    const spend = (await client.callTool({ name: 'spend_summary', arguments: {} })) as Result;
    expect(json(spend)).toMatchObject({ month_to_date: expect.any(Number), balance: expect.any(Number) });
  } finally {
    await client.close();
  }
});
