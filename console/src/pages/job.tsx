/** A job's page: its attempts, the live log of the attempt running, and cancel. */
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { Job, JobAttempt } from '../types';
import { Confirm, Empty, ErrorNotice, Link, useAction, usePoll } from '../ui';
import { PROVIDER_NAMES, dollars, localTime, perHour } from '../format';
import { LogView } from './logs';
import { ENDED, REFRESH_MS, exitCode } from './jobs';

/** The job's attempts, one row each, with the button that shows an attempt's log. */
function Attempts({
  job,
  attempts,
  shown,
  onShow,
}: {
  job: Job;
  attempts: JobAttempt[];
  shown: number | null;
  onShow: (n: number) => void;
}) {
  return (
    <>
      {attempts.length === 0 ? (
        <Empty>No attempt yet: the job is waiting for an offer it may run on.</Empty>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Attempts of {job.name}</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Where</th>
                <th scope="col">Price</th>
                <th scope="col">Started</th>
                <th scope="col">Ended</th>
                <th scope="col">Why</th>
                <th scope="col">Exit code</th>
                <th scope="col" class="num">
                  Cost
                </th>
                <th scope="col">
                  <span class="sr-only">Log</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((a) => (
                <tr key={a.n} aria-selected={a.n === shown}>
                  <td>{a.n}</td>
                  <td>
                    {PROVIDER_NAMES[a.provider]}
                    {a.spot ? ' (spot)' : ''}{' '}
                    {a.instance_id ? (
                      <Link to={`/instances/${encodeURIComponent(a.instance_id)}`}>{a.instance_id}</Link>
                    ) : null}
                  </td>
                  <td>{perHour(a.price_per_hour)}</td>
                  <td>{localTime(a.started_at)}</td>
                  <td>{localTime(a.ended_at)}</td>
                  <td>
                    {a.end_reason ?? (a.ended_at ? '' : 'running')}
                    {a.end_detail ? <small> ({a.end_detail})</small> : null}
                  </td>
                  <td>{exitCode(a.exit_code)}</td>
                  <td class="num">{dollars(a.cost, 4)}</td>
                  <td>
                    <button type="button" class="link" aria-pressed={a.n === shown} onClick={() => onShow(a.n)}>
                      Log
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function JobPage({ api, id }: { api: Api; id: string }) {
  const scopes = useScopes();
  const job = usePoll(() => api.request<Job>('GET', `/v1/jobs/${encodeURIComponent(id)}`), REFRESH_MS, [api, id]);
  const [shown, setShown] = useState<number | null>(null);
  const [confirming, setConfirming] = useState(false);
  const cancel = useAction();
  const j = job.data;
  if (!j)
    return (
      <section aria-labelledby="job-title">
        <h1 id="job-title">Job {id}</h1>
        <ErrorNotice error={job.error} />
        {job.error ? null : <p>Loading…</p>}
      </section>
    );
  const attempts = j.attempts ?? [];
  const latest = attempts[attempts.length - 1];
  const n = shown ?? latest?.n ?? null;
  const attempt = attempts.find((a) => a.n === n);
  const ended = ENDED.has(j.status);
  return (
    <section aria-labelledby="job-title">
      <p>
        <Link to="/jobs">Jobs</Link>
      </p>
      <h1 id="job-title">
        {j.name}{' '}
        <span class={`status status-${j.status}`} data-testid="job-status">
          {j.status}
        </span>
      </h1>
      <ErrorNotice error={job.error} />
      <dl class="cards">
        <div>
          <dt>Exit code</dt>
          <dd data-testid="job-exit-code">{exitCode(j.exit_code)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd data-testid="job-cost">{dollars(j.cost, 4)}</dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{attempts.length}</dd>
        </div>
        <div>
          <dt>GPU</dt>
          <dd>
            {j.gpu_count > 1 ? `${j.gpu_count}× ` : ''}
            {j.gpu}
          </dd>
        </div>
        <div>
          <dt>Limits</dt>
          <dd>
            {j.max_cost === null ? 'no cost limit' : `${dollars(j.max_cost)} in all`}
            {j.max_duration_hours === null ? '' : `, ${j.max_duration_hours} h an attempt`}
          </dd>
        </div>
      </dl>
      {j.error ? (
        <p class="warning" role="status">
          {j.error}
        </p>
      ) : null}
      <p>
        Command: <code class="wrap">{j.command}</code>
      </p>
      {!ended ? (
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={cancel.busy || !scopes.allowed('compute:write')}
            title={scopes.why('compute:write')}
            onClick={() => setConfirming(true)}
          >
            Cancel job
          </button>
        </div>
      ) : null}
      <ErrorNotice error={cancel.error} />
      <h2>Attempts</h2>
      <Attempts job={j} attempts={attempts} shown={n} onShow={setShown} />
      {attempt ? (
        <>
          <h2>Log of attempt {attempt.n}</h2>
          {attempt.output_tail && attempt.ended_at ? (
            <details>
              <summary>The output's tail the wrapper reported</summary>
              <pre class="log-lines">{attempt.output_tail}</pre>
            </details>
          ) : null}
          <LogView
            api={api}
            route="/v1/jobs/{id}/logs"
            path={`/v1/jobs/${encodeURIComponent(j.id)}/logs?attempt=${attempt.n}`}
            // Followed from the attempt's start, before the observer has seen it running: the stream waits for
            // the instance, and a command's first lines (printed at once) come live.
            live={attempt.ended_at === null}
            label={`Log of attempt ${attempt.n}`}
          />
        </>
      ) : null}
      {confirming ? (
        <Confirm
          title="Cancel this job?"
          confirmLabel="Cancel job"
          onConfirm={() => {
            setConfirming(false);
            void cancel.run(async () => {
              await api.request('POST', `/v1/jobs/${encodeURIComponent(j.id)}/cancel`);
              await job.reload();
            });
          }}
          onCancel={() => setConfirming(false)}
        >
          <p>Its running attempt is terminated and the job ends cancelled; what ran so far is charged.</p>
        </Confirm>
      ) : null}
    </section>
  );
}
