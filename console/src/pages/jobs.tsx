/**
 * Jobs: the list (status, attempts, cost, exit code). A job's page is ./job, "run a job" is ./run-job.
 */
import { useRef, useState } from 'preact/hooks';
import type { Api } from '../api';
import type { Job, Page } from '../types';
import { Empty, ErrorNotice, Link, usePoll } from '../ui';
import { dollars, localTime } from '../format';

export const ENDED = new Set(['succeeded', 'failed', 'cancelled']);
export const REFRESH_MS = 3_000;

export const exitCode = (code: number | null | undefined) => (code === null || code === undefined ? '—' : String(code));

export function JobsPage({ api }: { api: Api }) {
  const [status, setStatus] = useState('');
  // The list carries no attempts: each job's record does. An ended job's record no longer changes, so it is kept.
  const ended = useRef(new Map<string, Job>());
  const jobs = usePoll(
    async () => {
      const page = await api.request<Page<Job>>('GET', `/v1/jobs?limit=50${status ? `&status=${status}` : ''}`);
      const data = await Promise.all(
        page.data.map(async (j) => {
          const kept = ended.current.get(j.id);
          if (kept) return kept;
          const full = await api.request<Job>('GET', `/v1/jobs/${encodeURIComponent(j.id)}`);
          if (ENDED.has(full.status)) ended.current.set(j.id, full);
          return full;
        }),
      );
      return { ...page, data };
    },
    REFRESH_MS * 2,
    [api, status],
  );
  return (
    <section aria-labelledby="jobs-title">
      <div class="page-head">
        <h1 id="jobs-title">Jobs</h1>
        <Link to="/jobs/new" class="button">
          Run a job
        </Link>
      </div>
      <label for="job-status">Status</label>{' '}
      <select id="job-status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
        <option value="">All</option>
        {['pending', 'running', 'retrying', 'succeeded', 'failed', 'cancelled'].map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <ErrorNotice error={jobs.error} />
      {jobs.data && jobs.data.data.length === 0 ? (
        <Empty>
          No jobs{status ? ` ${status}` : ''} yet. <Link to="/jobs/new">Run a job</Link>: a command on the cheapest GPU
          that fits, relaunched on preemption, ended when it exits.
        </Empty>
      ) : null}
      {jobs.data && jobs.data.data.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Jobs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">GPU</th>
                <th scope="col" class="num">
                  Attempts
                </th>
                <th scope="col" class="num">
                  Cost
                </th>
                <th scope="col">Exit code</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.data.map((j) => (
                <tr key={j.id} data-job-id={j.id}>
                  <td>
                    <Link to={`/jobs/${encodeURIComponent(j.id)}`}>{j.name}</Link>
                  </td>
                  <td>
                    <span class={`status status-${j.status}`}>{j.status}</span>
                  </td>
                  <td>
                    {j.gpu_count > 1 ? `${j.gpu_count}× ` : ''}
                    {j.gpu}
                  </td>
                  <td class="num">{j.attempts?.length ?? '—'}</td>
                  <td class="num">{dollars(j.cost, 4)}</td>
                  <td>{exitCode(j.exit_code)}</td>
                  <td>{localTime(j.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
