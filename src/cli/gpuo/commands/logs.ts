/** Printing logs: the last lines as they come, or a follow line by line until its end (said on stderr). */
import type { LogEvent } from '../../../../sdk/src';
import type { OptionSpec, Context } from '../spec';
import { flag, num } from './input';

export const LOG_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  follow: { type: 'boolean', short: 'f', description: 'keep printing new lines until it ends' },
  tail: { type: 'string', value: '<n>', description: 'the last n lines (default 100, at most 5000)' },
};

export const logQuery = (ctx: Context) => {
  const tail = num(ctx, 'tail', { integer: true });
  return tail === undefined ? {} : { tail };
};
export const following = (ctx: Context) => flag(ctx, 'follow');

/** Prints a tail (as JSON `{"text"}` with `-o json`). */
export function printTail(ctx: Context, text: string): void {
  ctx.out.print({ text }, () => text);
}

/** Prints each line of a follow as it arrives (JSON lines with `-o json`), then how it ended on stderr. */
export async function printFollow(ctx: Context, what: string, events: AsyncIterable<LogEvent>): Promise<void> {
  for await (const event of events) {
    if (ctx.out.format === 'json') ctx.io.stdout.write(JSON.stringify(event) + '\n');
    else if ('line' in event) ctx.io.stdout.write(event.line + '\n');
    if ('end' in event) {
      const code = event.end.exit_code === null ? 'no exit code' : `exit code ${event.end.exit_code}`;
      ctx.out.progress(`${what} ended: ${event.end.status}, ${code}`);
    }
  }
}
