/**
 * The providers' log APIs over the simulated containers' output (./containers):
 * - RunPod `GET /v2/pods/{id}/logs`: server-sent events, one per line, `id: <ts>/<seq>` and
 *   `data: {"ts","source":"container","line"}`; `tail` lines of backfill (default 100, at most 5000), or what
 *   follows `since` / `Last-Event-ID`; then new lines as they are printed. The simulator closes the stream
 *   once the container has ended (and at once for a pod that never ran a job's command).
 * - Vast.ai `PUT /api/v0/instances/request_logs/{id}` `{tail}`: answers a `result_url` at once; the text (the
 *   last `tail` lines when it was asked) is uploaded after a delay (`setLogDelay`, default 1 s) and until then
 *   the URL answers 404 `NoSuchKey`, as an S3 object not written yet does.
 */
import { randomChars, type SimRequest, type SimResponse } from './kit';
import type { ContainerLogLine, SimContainers } from './containers';

const RUNPOD_TAIL_DEFAULT = 100;
const RUNPOD_TAIL_MAX = 5000;
const eventId = (l: ContainerLogLine) => `${new Date(l.ts).toISOString()}/${String(l.seq).padStart(12, '0')}`;
const sseEvent = (l: ContainerLogLine) => {
  const data = JSON.stringify({ ts: new Date(l.ts).toISOString(), source: 'container', line: l.line });
  return `id: ${eventId(l)}\ndata: ${data}\n\n`;
};

/** The lines after a resume cursor (`Last-Event-ID` as this endpoint wrote it, or an RFC 3339 time). */
function after(lines: readonly ContainerLogLine[], cursor: string): ContainerLogLine[] {
  const [at, seq] = cursor.split('/');
  const ms = Date.parse(at ?? '');
  if (seq !== undefined && /^\d+$/.test(seq)) return lines.filter((l) => l.seq > Number(seq));
  return Number.isNaN(ms) ? [...lines] : lines.filter((l) => l.ts >= ms);
}

/**
 * The answer of RunPod's log stream for a pod that exists, or a 400 for bad parameters. `problem` builds the
 * provider's RFC 9457 error body.
 */
export function runpodLogStream(
  containers: SimContainers,
  podId: string,
  req: SimRequest,
  problem: (status: number, detail: string) => SimResponse,
): SimResponse {
  const tailText = req.query.get('tail');
  const tail = tailText === null ? RUNPOD_TAIL_DEFAULT : Number(tailText);
  if (!Number.isInteger(tail) || tail < 0 || tail > RUNPOD_TAIL_MAX)
    return problem(400, `tail must be an integer from 0 to ${RUNPOD_TAIL_MAX}`);
  const source = req.query.get('source');
  if (source !== null && source !== 'container' && source !== 'system')
    return problem(400, 'source must be container or system');
  const cursor = (req.headers['last-event-id'] as string | undefined) ?? req.query.get('since');
  const log = containers.log(podId);
  const lines =
    source === 'system' || !log ? [] : cursor ? after(log.lines, cursor) : tail === 0 ? [] : log.lines.slice(-tail);
  return {
    status: 200,
    headers: { 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' },
    stream: (res) => {
      res.flushHeaders();
      res.write(lines.map(sseEvent).join(''));
      if (source === 'system') return void res.end();
      const unfollow = containers.follow(
        podId,
        (l) => res.write(sseEvent(l)),
        () => res.end(),
      );
      res.on('close', unfollow);
    },
  };
}

interface Upload {
  readyAt: number;
  text: string;
}

/** Vast.ai's log uploads: `request_logs` snapshots a container's log, served at its `result_url` after a delay. */
export class VastLogUploads {
  private readonly uploads = new Map<string, Upload>();
  delayMs = 1_000;

  /** The answer of `request_logs`; the URL is on the simulator's own host. */
  request(acct: { instances: Map<number, unknown> }, containers: SimContainers, req: SimRequest): SimResponse {
    const id = req.params.id!;
    if (!/^\d+$/.test(id) || !acct.instances.has(Number(id)))
      return { status: 404, body: { success: false, error: 'invalid_id', msg: 'Invalid instance id.' } };
    const body = (req.body ?? {}) as { tail?: unknown; daemon_logs?: unknown };
    const tail = body.tail === undefined ? 1000 : Number(body.tail);
    if (!Number.isInteger(tail) || tail < 0)
      return { status: 400, body: { success: false, error: 'invalid_args', msg: 'tail must be a number of lines' } };
    const lines = body.daemon_logs === 'true' ? [] : (containers.log(id)?.lines ?? []);
    const text = (tail === 0 ? [] : lines.slice(-tail)).map((l) => `${l.line}\n`).join('');
    const name = randomChars('abcdef0123456789', 32);
    if (this.uploads.size >= 1000) this.uploads.delete(this.uploads.keys().next().value!);
    this.uploads.set(name, { readyAt: Date.now() + this.delayMs, text });
    return {
      status: 200,
      body: {
        success: true,
        result_url: `http://${req.headers.host}/instance_logs/${name}.log`,
        msg: 'Request for logs sent, the logs will be available at result_url shortly.',
      },
    };
  }

  /** `GET /instance_logs/{name}.log`, unauthenticated as a presigned S3 URL is. */
  fetch(name: string): SimResponse {
    const upload = this.uploads.get(name.replace(/\.log$/, ''));
    if (!upload || Date.now() < upload.readyAt) {
      return {
        status: 404,
        contentType: 'application/xml',
        rawBody: '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code></Error>',
      };
    }
    return { status: 200, contentType: 'text/plain; charset=utf-8', rawBody: upload.text };
  }
}
