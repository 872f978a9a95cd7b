/** Reading the command line: option values, numbers, lists, and secrets read from a file or stdin. */
import { readFile } from 'node:fs/promises';
import { UsageError, type Io } from '../output';
import type { Context } from '../spec';

export const PROVIDERS = ['runpod', 'vastai', 'lambda'] as const;

export const str = (ctx: Context, name: string) => ctx.opts[name] as string | undefined;
export const flag = (ctx: Context, name: string) => ctx.opts[name] === true;

export function num(ctx: Context, name: string, { integer = false } = {}): number | undefined {
  const value = str(ctx, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'} (got ${JSON.stringify(value)})`);
  }
  return n;
}

export const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Both idle-stop options, or neither. */
export function idleStop(ctx: Context) {
  const below = num(ctx, 'idle-below');
  const minutes = num(ctx, 'idle-minutes', { integer: true });
  if ((below === undefined) !== (minutes === undefined))
    throw new UsageError('--idle-below and --idle-minutes go together');
  return below === undefined ? {} : { idle_stop: { utilization_below_percent: below, for_minutes: minutes! } };
}

/** All of stdin (piped), or one line typed at a terminal without echo. */
async function readStdin(io: Io, prompt: string): Promise<string> {
  const stdin = io.stdin;
  if (stdin.isTTY && stdin.setRawMode) {
    io.stderr.write(prompt);
    stdin.setRawMode(true);
    try {
      return await new Promise<string>((resolve, reject) => {
        let typed = '';
        const onData = (chunk: Buffer | string) => {
          for (const c of chunk.toString()) {
            if (c === '\r' || c === '\n' || c === '\u0004') return done(() => resolve(typed));
            if (c === '\u0003') return done(() => reject(new UsageError('cancelled')));
            typed = c === '\u007f' || c === '\b' ? typed.slice(0, -1) : typed + c;
          }
        };
        const done = (finish: () => void) => {
          stdin.removeListener('data', onData);
          stdin.pause();
          io.stderr.write('\n');
          finish();
        };
        stdin.on('data', onData);
        stdin.resume();
      });
    } finally {
      stdin.setRawMode(false);
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** A secret or a key from a file (`-` is stdin) or, without a file, from stdin: never from the command line. */
export async function readInput(ctx: Context, fileOption: string, what: string): Promise<string> {
  const file = str(ctx, fileOption);
  const text = file && file !== '-' ? await readFile(file, 'utf8') : await readStdin(ctx.io, `${what}: `);
  const value = text.trim();
  if (!value) throw new UsageError(`no ${what} read from ${file && file !== '-' ? file : 'stdin'}`);
  return value;
}

export const ID = [{ name: 'id', required: true }] as const;
