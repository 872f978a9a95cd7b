/**
 * `gpuo`: the GPU orchestrator from a terminal, on the typed SDK. The command table (commands/) says what
 * each command takes; this file finds the command, parses its options (strict: an unknown flag is a usage
 * error, exit 2, with the usage) and runs it. `gpuo mcp` serves the same API to AI agents over stdio.
 */
import { connect } from './api';
import { COMMANDS } from './commands';
import { createOut, EXIT, reportError, UsageError, type Io } from './output';
import { commandHelp, groupHelp, overallHelp, parseCommandLine, resolveCommand, type CommandSpec } from './spec';

/** Runs one command line and gives its exit code (nothing here exits the process: tests run it in place). */
export async function runGpuo(
  argv: readonly string[],
  io: Io,
  table: readonly CommandSpec[] = COMMANDS,
): Promise<number> {
  const wantsJson =
    argv.includes('--json') ||
    argv.some((a, i) => a === '--output=json' || ((a === '--output' || a === '-o') && argv[i + 1] === 'json'));
  if (argv.length === 0 || (argv[0] === 'help' && argv.length === 1) || argv[0] === '--help' || argv[0] === '-h') {
    io[argv.length === 0 ? 'stderr' : 'stdout'].write(overallHelp(table));
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  // `gpuo help schedules create` is `gpuo schedules create --help`.
  const words = argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv;
  const { spec, words: named, positionals, rest, group } = resolveCommand(table, words);
  if (!spec) {
    const asked = words.includes('--help') || words.includes('-h');
    const text = group ? groupHelp(table, group) : overallHelp(table);
    if (asked && group) {
      io.stdout.write(text);
      return EXIT.ok;
    }
    const problem = named.length ? `unknown command "${named.join(' ')}"` : 'no command';
    return reportError(
      Object.assign(new UsageError(`${problem} (gpuo --help lists them)`), { usage: text }),
      wantsJson ? 'json' : 'table',
      io,
    );
  }
  let format: 'json' | 'table' = wantsJson ? 'json' : 'table';
  try {
    const parsed = parseCommandLine(spec, positionals, rest);
    format = parsed.format;
    if (parsed.help) {
      io.stdout.write(commandHelp(spec));
      return EXIT.ok;
    }
    const code = await spec.run({ ...parsed, out: createOut(format, io), io, api: () => connect(io.env), spec });
    return code ?? EXIT.ok;
  } catch (err) {
    if (err instanceof UsageError && !err.usage) err.usage = commandHelp(spec);
    return reportError(err, format, io);
  }
}

/** The process: `bin/gpuo.js` calls this. */
export function main(argv: string[] = process.argv.slice(2)): void {
  const io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
  runGpuo(argv, io).then(
    (code) => {
      // `mcp` keeps serving until stdin closes; every other command is done.
      if (argv[0] !== 'mcp') process.exit(code);
    },
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exit(EXIT.unexpected);
    },
  );
}
