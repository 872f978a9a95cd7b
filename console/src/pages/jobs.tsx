/**
 * Jobs: the list (status, attempts, cost, exit code), a job's page (its attempts, the live log of the attempt
 * running, cancel), and "run a job": the launch wizard's offer and plan steps, then the command and its limits.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { Job, Page, PlannedLaunch, PlanSearch, PricingSnapshot, ProviderId, Template } from '../types';
import { Confirm, Empty, ErrorNotice, Link, useAction, usePoll } from '../ui';
import { PROVIDER_NAMES, dollars, localTime, perHour } from '../format';
import { navigate } from '../router';
import { LogView } from './logs';
import { GetStarted } from './onboarding';
import { OfferStep, PlanStep } from './launch';

/** Providers that can run a job's command in a container (Lambda starts no command). */
const JOB_PROVIDERS: ProviderId[] = ['runpod', 'vastai'];
const ENDED = new Set(['succeeded', 'failed', 'cancelled']);
const REFRESH_MS = 3_000;

const exitCode = (code: number | null | undefined) => (code === null || code === undefined ? '—' : String(code));

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
      {attempts.length === 0 ? (
        <Empty>No attempt yet: the job is waiting for an offer it may run on.</Empty>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Attempts of {j.name}</caption>
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
                <tr key={a.n} aria-selected={a.n === n}>
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
                    <button type="button" class="link" aria-pressed={a.n === n} onClick={() => setShown(a.n)}>
                      Log
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
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
            live={attempt.started_at !== null && attempt.ended_at === null}
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

/** What the job form adds to the chosen offer. */
interface JobSettings {
  name: string;
  template: string;
  docker_image: string;
  command: string;
  max_cost: string;
  max_duration_hours: string;
  max_attempts: string;
}

/** The job's body: the chosen offer's GPU, provider and kind, at most its price, and the settings. */
export function jobBody(offer: PlannedLaunch, s: JobSettings): Record<string, unknown> {
  const body: Record<string, unknown> = {
    gpu: offer.gpu_type,
    gpu_count: offer.gpu_count,
    command: s.command,
    providers: [offer.provider],
    spot_policy: offer.spot ? 'spot' : 'on-demand',
    retry: { max_attempts: Number(s.max_attempts) || 3 },
  };
  // The price chosen is the most a relaunch may cost (the whole instance's hourly price, docs/jobs.md).
  if (offer.price_per_hour !== null) body.max_price_per_hour = Math.round(offer.price_per_hour * 1e6) / 1e6;
  if (s.name.trim()) body.name = s.name.trim();
  if (s.template === 'custom') body.docker_image = s.docker_image.trim();
  else body.template = s.template;
  if (s.max_cost) body.max_cost = Number(s.max_cost);
  if (s.max_duration_hours) body.max_duration_hours = Number(s.max_duration_hours);
  return body;
}

export function RunJobPage({ api }: { api: Api }) {
  const scopes = useScopes();
  const [pricing, setPricing] = useState<PricingSnapshot | null>(null);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [search, setSearch] = useState<PlanSearch | null>(null);
  const [offer, setOffer] = useState<PlannedLaunch | null>(null);
  const [plan, setPlan] = useState<PlannedLaunch | null>(null);
  const [settings, setSettings] = useState<JobSettings>({
    name: '',
    template: '',
    docker_image: '',
    command: '',
    max_cost: '',
    max_duration_hours: '',
    max_attempts: '3',
  });
  const { busy, error, setError, run } = useAction();
  useEffect(() => {
    api.pricing().then(setPricing, setError);
    api.request<Page<Template>>('GET', '/v1/templates').then((t) => {
      setTemplates(t.data);
      setSettings((s) => ({ ...s, template: s.template || t.data[0]?.slug || 'custom' }));
    }, setError);
  }, [api]);
  const set = (k: keyof JobSettings) => (e: Event) => {
    setSettings({ ...settings, [k]: (e.target as HTMLInputElement).value });
    setPlan(null);
  };
  const findOffers = (body: { gpu_type: string; gpu_count: number; spot: boolean }) => {
    setOffer(null);
    setPlan(null);
    setSearch(null);
    void run(async () =>
      setSearch(await api.request<PlanSearch>('POST', '/v1/compute/plan', { ...body, providers: JOB_PROVIDERS })),
    );
  };
  const planIt = (e: Event) => {
    e.preventDefault();
    if (offer)
      void run(async () => setPlan(await api.request<PlannedLaunch>('POST', '/v1/compute/plan', offer.launch)));
  };
  const start = () => {
    if (!offer) return;
    void run(
      async () => {
        const job = await api.request<Job>('POST', '/v1/jobs', jobBody(offer, settings));
        navigate(`/jobs/${encodeURIComponent(job.id)}`);
      },
      { leavesPage: true },
    );
  };
  return (
    <section aria-labelledby="run-job-title">
      <p>
        <Link to="/jobs">Jobs</Link>
      </p>
      <h1 id="run-job-title">Run a job</h1>
      <GetStarted api={api} />
      <p class="hint">
        A command on a GPU until it exits: the instance ends as soon as it does, and a preempted or unavailable offer is
        retried. RunPod and Vast.ai run jobs.
      </p>
      <OfferStep
        gpus={pricing?.gpu_types ?? []}
        busy={busy}
        search={search}
        offer={offer}
        onFind={findOffers}
        onChoose={(c) => {
          setOffer(c);
          setPlan(null);
        }}
        unusable={(c) => (JOB_PROVIDERS.includes(c.provider) ? null : `${PROVIDER_NAMES[c.provider]} cannot run jobs`)}
      />
      {offer ? (
        <form onSubmit={planIt} aria-label="3. The job" class="settings-form">
          <h2>
            3. The job on {PROVIDER_NAMES[offer.provider]} {offer.gpu_count}× {offer.gpu_type}
            {offer.spot ? ' (spot)' : ''}
          </h2>
          <div class="stack-form">
            <div>
              <label for="job-command">Command</label>
              <textarea
                id="job-command"
                required
                rows={3}
                value={settings.command}
                placeholder="python train.py --epochs 3"
                onInput={set('command')}
              />
            </div>
          </div>
          <div class="inline-form">
            <div>
              <label for="job-name">Name</label>
              <input id="job-name" value={settings.name} placeholder="optional" onInput={set('name')} />
            </div>
            <div>
              <label for="job-template">Image</label>
              <select id="job-template" value={settings.template} onChange={set('template')}>
                {templates.map((t) => (
                  <option key={t.slug} value={t.slug}>
                    {t.name}
                  </option>
                ))}
                <option value="custom">Custom image…</option>
              </select>
            </div>
            {settings.template === 'custom' ? (
              <div>
                <label for="job-image">Docker image</label>
                <input id="job-image" required value={settings.docker_image} onInput={set('docker_image')} />
              </div>
            ) : null}
            <div>
              <label for="job-max-cost">Stop at cost ($, all attempts)</label>
              <input
                id="job-max-cost"
                type="number"
                min="0.01"
                step="0.01"
                placeholder="no limit"
                value={settings.max_cost}
                onInput={set('max_cost')}
              />
            </div>
            <div>
              <label for="job-hours">Hours per attempt</label>
              <input
                id="job-hours"
                type="number"
                min="0.1"
                step="0.1"
                placeholder="no limit"
                value={settings.max_duration_hours}
                onInput={set('max_duration_hours')}
              />
            </div>
            <div>
              <label for="job-attempts">Attempts at most</label>
              <input
                id="job-attempts"
                type="number"
                min="1"
                max="20"
                value={settings.max_attempts}
                onInput={set('max_attempts')}
              />
            </div>
          </div>
          <button type="submit" disabled={busy}>
            Review the plan
          </button>
        </form>
      ) : null}
      {plan && offer ? (
        <PlanStep plan={plan}>
          <p class="hint">
            The job runs at most at {perHour(offer.price_per_hour)}; a relaunch takes the cheapest{' '}
            {offer.spot ? 'spot' : 'on-demand'} offer at {PROVIDER_NAMES[offer.provider]} up to that price.
          </p>
          <button
            type="button"
            onClick={start}
            disabled={busy || !plan.admitted || !settings.command.trim() || !scopes.allowed('compute:write')}
            title={scopes.why('compute:write')}
          >
            {busy ? 'Starting…' : 'Run the job'}
          </button>
        </PlanStep>
      ) : null}
      <ErrorNotice error={error} />
    </section>
  );
}
