/**
 * `gpuo`: the GPU orchestrator from a terminal, on the typed SDK. Tables for people, `--json` for scripts,
 * exit codes by error class (see output.ts). `gpuo mcp` serves the same operations to AI agents over stdio.
 */
import { parseArgs } from 'node:util';
import { commands, type Flags } from './commands';
import { createOut, reportError, UsageError, EXIT } from './output';

const HELP = `gpuo: rent GPUs across RunPod, Vast.ai and Lambda through the GPU orchestrator API

usage: gpuo <command> [options] [--json]

  login --key <API key> [--url <API URL>]   save the key (config dir, mode 0600) after checking it
  offers [gpu]                              prices: every GPU type, or one type across providers
  plan --gpu <type> [--provider p] [--count n] [--spot] [--region r] [--max-price $/h]
                                            what a launch would cost and whether it would be admitted
  launch --provider p --gpu <type> [--count n] [--spot] [--region r] [--name n] [--image img] [--wait [--timeout s]]
  ls                                        instances
  stop <id> | terminate <id>
  balance | spend                           balance; this month's spend
  schedules                                 scheduled runs
  keys [ls] | keys create --name n --scopes read,compute:write [--cap 5/day] | keys revoke <id>
  mcp                                       an MCP server on stdio for AI agents (bounded by the key's scopes and cap)

Environment: GPUO_API_URL, GPUO_API_KEY override the saved login; GPUO_CONFIG_DIR moves the config.
Exit codes: 0 ok, 2 usage or invalid input, 3 key refused (401/403), 4 not found, 5 refused (402/409/422),
6 unavailable or rate limited, 1 anything else.
`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        provider: { type: 'string' },
        gpu: { type: 'string' },
        count: { type: 'string' },
        spot: { type: 'boolean' },
        region: { type: 'string' },
        name: { type: 'string' },
        image: { type: 'string' },
        'max-price': { type: 'string' },
        wait: { type: 'boolean' },
        timeout: { type: 'string' },
        key: { type: 'string' },
        url: { type: 'string' },
        scopes: { type: 'string' },
        cap: { type: 'string' },
      },
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.help || !command) {
    process.stdout.write(HELP);
    return command || values.help ? EXIT.ok : EXIT.usage;
  }
  const json = values.json ?? false;
  try {
    if (command === 'mcp') {
      // Loaded only here: the MCP SDK is not needed by the other commands.
      const { serveMcp } = require('./mcp') as typeof import('./mcp');
      await serveMcp();
      return EXIT.ok;
    }
    const run = commands[command];
    if (!run) throw new UsageError(`unknown command "${command}" (gpuo --help lists them)`);
    await run(args, values as Flags, createOut(json));
    return EXIT.ok;
  } catch (err) {
    return reportError(err, json);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // `mcp` keeps serving until stdin closes; every other command is done.
    if (process.argv[2] !== 'mcp') process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(EXIT.unexpected);
  },
);
