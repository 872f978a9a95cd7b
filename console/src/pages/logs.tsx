/**
 * A log: live while its job attempt or instance runs (`?follow=true`, a text/event-stream read with fetch so the
 * key stays in the header: each line as it comes, then `end` with the status and exit code), plain text once
 * it has ended.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../api';
import { ErrorNotice } from '../ui';

const exitCode = (code: number | null | undefined) =>
  code === undefined || code === null ? '' : `, exit code ${code}`;

/** Lines kept on the page: a long run's log is trimmed at the top. */
const MAX_LINES = 5_000;

/** A path template with its parameters unnamed: `/v1/jobs/{id}/logs` and `/v1/jobs/{job_id}/logs` are one path. */
const template = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

/** The paths the API serves (its OpenAPI document, public), read once per page load. */
let served: Promise<ReadonlySet<string>> | null = null;
function servedPaths(): Promise<ReadonlySet<string>> {
  served ??= fetch('/v1/openapi.json', { cache: 'no-store' })
    .then((r) => r.json() as Promise<{ paths?: Record<string, unknown> }>)
    .then((d) => new Set(Object.keys(d.paths ?? {}).map(template)))
    .catch(() => {
      served = null;
      return new Set<string>();
    });
  return served;
}

/**
 * `route` is the path template in the OpenAPI document (`/v1/jobs/{id}/logs`); an API that does not serve it
 * gets a sentence instead of a request answered 404.
 */
export function LogView({
  api,
  route,
  path,
  live,
  label,
}: {
  api: Api;
  route: string;
  path: string;
  live: boolean;
  label: string;
}) {
  const [lines, setLines] = useState<string[]>([]);
  const [state, setState] = useState<'loading' | 'following' | 'ended' | 'unavailable'>('loading');
  const [end, setEnd] = useState<{ status?: string; exit_code?: number | null } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const box = useRef<HTMLPreElement>(null);

  useEffect(() => {
    const abort = new AbortController();
    setLines([]);
    setEnd(null);
    setError(null);
    const failed = (err: unknown) => {
      if (!abort.signal.aborted) setError(err);
    };
    const read = () => {
      if (live) {
        setState('following');
        const sep = path.includes('?') ? '&' : '?';
        api
          .follow(
            `${path}${sep}follow=true`,
            {
              line: (l) => setLines((all) => (all.length >= MAX_LINES ? [...all.slice(1), l] : [...all, l])),
              end: (data) => {
                setEnd(data as typeof end);
                setState('ended');
              },
            },
            abort.signal,
          )
          .then(() => !abort.signal.aborted && setState((s) => (s === 'following' ? 'ended' : s)), failed);
      } else {
        api.text(path, abort.signal).then((text) => {
          setLines(text === '' ? [] : text.replace(/\n$/, '').split('\n'));
          setState('ended');
        }, failed);
      }
    };
    void servedPaths().then((paths) => {
      if (abort.signal.aborted) return;
      if (!paths.has(template(route))) setState('unavailable');
      else read();
    });
    return () => abort.abort();
  }, [api, route, path, live]);

  useEffect(() => {
    const el = box.current;
    if (el && state === 'following') el.scrollTop = el.scrollHeight;
  }, [lines, state]);

  if (state === 'unavailable') return <p class="hint">Logs are not served by this API.</p>;
  return (
    <div class="log">
      <p class="hint" aria-live="polite" data-testid="log-state">
        {state === 'following'
          ? 'Live: new lines appear as they are printed.'
          : state === 'ended'
            ? end
              ? `Ended: ${end.status ?? 'done'}${exitCode(end.exit_code)}.`
              : 'The whole log.'
            : 'Loading the log…'}
      </p>
      <ErrorNotice error={error} />
      <pre ref={box} class="log-lines" tabIndex={0} aria-label={label} data-testid="log-lines">
        {lines.length ? lines.join('\n') : state === 'loading' ? '' : '(nothing printed yet)'}
      </pre>
    </div>
  );
}
