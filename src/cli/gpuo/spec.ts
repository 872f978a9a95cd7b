/**
 * The shape of the command table (commands/) and what reads it: the command-line parser (node's
 * `util.parseArgs`, strict), the help and the usage lines. Completion (completion.ts) and the coverage test
 * read the same table, so a command exists in all of them or in none.
 */
import { parseArgs } from 'node:util';
import type { GpuoClient } from '../../../sdk/src';
import { UsageError, type Io, type Out, type OutputFormat } from './output';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** What the value is, as the usage shows it (`<dollars>`); string options only. */
  value?: string;
  description: string;
  required?: boolean;
  /** The only values accepted (checked here, offered by completion). */
  choices?: readonly string[];
  short?: string;
}

export interface ArgSpec {
  name: string;
  required?: boolean;
  choices?: readonly string[];
}

export interface Context {
  /** Positional arguments by their name in `args`. */
  args: Record<string, string | undefined>;
  /** What follows `--` (and the positionals after `args`) for a command with `rest`. */
  rest: string[];
  opts: Record<string, string | boolean | undefined>;
  out: Out;
  io: Io;
  /** The API client with the saved login (or GPUO_API_URL and GPUO_API_KEY). */
  api(): Promise<GpuoClient>;
  spec: CommandSpec;
}

export interface CommandSpec {
  /** The words that name the command: `['schedules', 'create']`. */
  path: readonly string[];
  /** Other names of the same command (`offers` for `prices`). */
  aliases?: readonly (readonly string[])[];
  summary: string;
  args?: readonly ArgSpec[];
  /** The name of trailing arguments passed through (`ssh` passes them to ssh). */
  rest?: string;
  options?: Readonly<Record<string, OptionSpec>>;
  /**
   * Command lines that work (without `gpuo`): shown by `--help`, and run by the coverage test against a
   * recording server to learn which API operations the command calls.
   */
  examples: readonly string[];
  /** Returns the exit code when it is not 0 (`ssh` returns ssh's). */
  run(ctx: Context): Promise<number | void>;
}

/** Options every command takes. */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  output: {
    type: 'string',
    short: 'o',
    value: '<format>',
    choices: ['table', 'json'],
    description: 'table (default) for people, json for scripts',
  },
  json: { type: 'boolean', description: 'the same as --output json' },
  help: { type: 'boolean', short: 'h', description: 'this command’s usage' },
};

const words = (spec: CommandSpec) => [spec.path, ...(spec.aliases ?? [])];

/** The command whose words lead `argv` (the longest match), and what follows them. */
export function resolveCommand(table: readonly CommandSpec[], argv: readonly string[]) {
  const leading: string[] = [];
  const rest: string[] = [];
  let i = 0;
  // Global options may come before the command words: `gpuo -o json alerts`.
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json' || a === '--help' || a === '-h') rest.push(a);
    else if (a === '--output' || a === '-o') {
      rest.push(a, ...argv.slice(i + 1, i + 2));
      i++;
    } else if (a.startsWith('--output=')) rest.push(a);
    else break;
  }
  for (; i < argv.length && !argv[i]!.startsWith('-'); i++) leading.push(argv[i]!);
  rest.push(...argv.slice(i));
  let best: { spec: CommandSpec; length: number } | undefined;
  for (const spec of table) {
    for (const w of words(spec)) {
      if (w.length <= leading.length && w.every((word, k) => leading[k] === word) && w.length > (best?.length ?? 0))
        best = { spec, length: w.length };
    }
  }
  // A group named alone runs its `ls` (`gpuo alerts` lists alerts); `gpuo alerts --help` shows the group.
  if (!best && leading.length === 1 && !rest.includes('--help') && !rest.includes('-h')) {
    const ls = table.find((s) => s.path.length === 2 && s.path[0] === leading[0] && s.path[1] === 'ls');
    if (ls) best = { spec: ls, length: 1 };
  }
  const group = leading[0] && table.some((s) => s.path.length > 1 && s.path[0] === leading[0]) ? leading[0] : undefined;
  return { spec: best?.spec, words: leading, positionals: leading.slice(best?.length ?? 0), rest, group };
}

const optionUsage = (name: string, o: OptionSpec) => {
  const value = o.choices ? `<${o.choices.join('|')}>` : (o.value ?? '<value>');
  const flag = `--${name}${o.type === 'string' ? ` ${value}` : ''}`;
  return o.required ? flag : `[${flag}]`;
};

export function usageLine(spec: CommandSpec): string {
  const parts = ['gpuo', ...spec.path];
  for (const a of spec.args ?? []) {
    const name = a.choices ? a.choices.join('|') : a.name;
    parts.push(a.required ? `<${name}>` : `[${name}]`);
  }
  const opts = Object.entries(spec.options ?? {});
  for (const [name, o] of opts.filter(([, o]) => o.required)) parts.push(optionUsage(name, o));
  for (const [name, o] of opts.filter(([, o]) => !o.required)) parts.push(optionUsage(name, o));
  if (spec.rest) parts.push(`[-- ${spec.rest}…]`);
  return parts.join(' ');
}

/** `gpuo <command> --help`: the usage line, what it does, every option, examples. */
export function commandHelp(spec: CommandSpec): string {
  const opts = { ...(spec.options ?? {}), ...GLOBAL_OPTIONS };
  const width = Math.max(...Object.entries(opts).map(([n, o]) => optionUsage(n, { ...o, required: true }).length));
  const lines = [
    `usage: ${usageLine(spec)}`,
    '',
    spec.summary,
    ...(spec.aliases?.length ? [`also: ${spec.aliases.map((a) => `gpuo ${a.join(' ')}`).join(', ')}`] : []),
    '',
    'options:',
    ...Object.entries(opts).map(
      ([n, o]) =>
        `  ${optionUsage(n, { ...o, required: true }).padEnd(width)}  ` +
        `${o.description}${o.required ? ' (required)' : ''}`,
    ),
  ];
  if (spec.examples.length) lines.push('', 'examples:', ...spec.examples.map((e) => `  gpuo ${e}`));
  return lines.join('\n') + '\n';
}

/** `gpuo --help`: every command of the table, one per line, grouped by their first word. */
export function overallHelp(table: readonly CommandSpec[]): string {
  const names = table.map((s) => [s.path.join(' '), s.summary] as const);
  const width = Math.max(...names.map(([n]) => n.length));
  return [
    'gpuo: rent GPUs across RunPod, Vast.ai and Lambda through the GPU orchestrator API',
    '',
    'usage: gpuo <command> [options] [--output table|json]',
    '',
    'commands:',
    ...names.map(([n, s]) => `  ${n.padEnd(width)}  ${s}`),
    '',
    '`gpuo <command> --help` shows a command’s options and examples. A group alone lists (`gpuo alerts`).',
    'Environment: GPUO_API_URL and GPUO_API_KEY override the saved login; GPUO_CONFIG_DIR moves the config.',
    'Exit codes: 0 ok, 2 usage or invalid input, 3 key refused (401/403), 4 not found, 5 refused (402/409/422),',
    '6 unavailable or rate limited (429/5xx), 1 anything else; `gpuo ssh` exits with ssh’s code.',
    '',
  ].join('\n');
}

/** `gpuo <group> --help`: the group's commands. */
export function groupHelp(table: readonly CommandSpec[], group: string): string {
  const members = table.filter((s) => s.path[0] === group);
  return members.map((s) => `usage: ${usageLine(s)}\n  ${s.summary}\n`).join('');
}

export interface Parsed {
  args: Record<string, string | undefined>;
  rest: string[];
  opts: Record<string, string | boolean | undefined>;
  format: OutputFormat;
  help: boolean;
}

/** Parses what follows the command words with the command's options (strict: unknown flags are refused). */
export function parseCommandLine(spec: CommandSpec, positionals: readonly string[], rest: readonly string[]): Parsed {
  const options = { ...(spec.options ?? {}), ...GLOBAL_OPTIONS };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      strict: true,
      allowPositionals: true,
      options: Object.fromEntries(
        Object.entries(options).map(([n, o]) => [n, { type: o.type, ...(o.short ? { short: o.short } : {}) }]),
      ),
    });
  } catch (err) {
    // node's message goes on to explain `--`; its first sentence names the problem.
    throw new UsageError((err as Error).message.replace(/^(.*?\.) .*$/s, '$1'));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const help = values.help === true;
  const format = (values.json ? 'json' : (values.output ?? 'table')) as OutputFormat;
  const all = [...positionals, ...parsed.positionals];
  const argSpecs = spec.args ?? [];
  if (!help) {
    if (all.length > argSpecs.length && !spec.rest)
      throw new UsageError(`unexpected argument ${JSON.stringify(all[argSpecs.length])}`);
    argSpecs.forEach((a, k) => {
      if (a.required && all[k] === undefined) throw new UsageError(`missing <${a.name}>`);
      if (a.choices && all[k] !== undefined && !a.choices.includes(all[k]!))
        throw new UsageError(`<${a.name}> must be one of ${a.choices.join(', ')} (got ${JSON.stringify(all[k])})`);
    });
    const missing = Object.entries(spec.options ?? {}).filter(([name, o]) => o.required && values[name] === undefined);
    if (missing.length) throw new UsageError(`missing ${missing.map(([name]) => `--${name}`).join(', ')}`);
    for (const [name, o] of Object.entries(options)) {
      const v = values[name];
      if (o.choices && typeof v === 'string' && !o.choices.includes(v))
        throw new UsageError(`--${name} must be one of ${o.choices.join(', ')} (got ${JSON.stringify(v)})`);
      if (o.type === 'string' && v === '') throw new UsageError(`--${name} needs a value`);
    }
  }
  return {
    args: Object.fromEntries(argSpecs.map((a, k) => [a.name, all[k]])),
    rest: all.slice(argSpecs.length),
    opts: values,
    format: ['json', 'table'].includes(format) ? format : 'table',
    help,
  };
}

/** An example's words, as a shell would split it (single quotes only: the examples need no more). */
export function exampleArgv(example: string): string[] {
  return [...example.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}
