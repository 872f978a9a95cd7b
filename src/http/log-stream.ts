/**
 * How the logs routes answer: plain text (the last lines), or with `follow=true` server-sent events, one default
 * event per output line (`data: <line>`), a `: keep-alive` comment every `keepAliveMs`, and once the attempt or
 * instance ended `event: end` with `{"status","exit_code"}`, then the stream closes. Errors before the stream
 * opens (not found, the provider down) are answered in the usual JSON shape.
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { z } from 'zod';
import { LOG_MAX_BYTES, LOG_TAIL_DEFAULT, LOG_TAIL_MAX, type LogLibrary } from '../jobs/logs';
import type { RouteResult } from './route';

export const LogQuery = z
  .object({
    tail: z.coerce
      .number()
      .int()
      .min(0)
      .max(LOG_TAIL_MAX)
      .optional()
      .describe(
        `the last this many lines (default ${LOG_TAIL_DEFAULT}, at most ${LOG_TAIL_MAX}; ` +
          `a plain answer is also cut to its last ${LOG_MAX_BYTES / 1024} KiB)`,
      ),
    follow: z
      .enum(['true', 'false'])
      .optional()
      .describe('true: server-sent events, new lines while it runs, then an `end` event'),
  })
  .strict();
export type LogQuery = z.infer<typeof LogQuery>;

/** The documented answers of a logs route. */
export const LOG_RESPONSES = {
  200: {
    description:
      'text/plain: the last lines, one per line. ' +
      'With follow=true, text/event-stream: `data: <line>` per output line, ' +
      '`: keep-alive` comments, and at the end `event: end` with `data: {"status": …, "exit_code": <int|null>}`.',
    content: { 'text/plain': z.string(), 'text/event-stream': z.string() },
  },
};

/** Writes a follow as server-sent events until it ends or the client goes away. */
export async function answerLogs(
  ctx: Context,
  logs: LogLibrary,
  target: Parameters<LogLibrary['tail']>[0],
  query: LogQuery,
  keepAliveMs: number,
): Promise<RouteResult> {
  const tail = query.tail ?? LOG_TAIL_DEFAULT;
  if (query.follow !== 'true') {
    return { body: await logs.tail(target, tail), headers: { 'Content-Type': 'text/plain; charset=utf-8' } };
  }
  const gone = new AbortController();
  // The response's close, not the request's (a GET's request closes once it has been read).
  ctx.res.once('close', () => gone.abort());
  const run = await logs.follow(target, tail, gone.signal);
  const out = new PassThrough();
  const write = (text: string) => {
    if (!out.writableEnded) out.write(text);
  };
  const keepAlive = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
  write(': keep-alive\n\n');
  void run({
    line: (text) => {
      for (const piece of text.split(/\r\n|\r|\n/)) write(`data: ${piece}\n\n`);
    },
    end: (state) => write(`event: end\ndata: ${JSON.stringify(state)}\n\n`),
  })
    .catch(() => undefined)
    .finally(() => {
      clearInterval(keepAlive);
      out.end();
    });
  ctx.req.socket.setTimeout(0);
  return {
    body: out,
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    },
  };
}
