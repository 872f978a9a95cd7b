/**
 * Schedules: create one (a five-field UTC cron with its next firings previewed as it is typed, a GPU, an image,
 * the limits that stop each run), edit, pause/resume, run now, delete; each schedule's run history.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { Page, PricingSnapshot, Schedule, ScheduleRun, Template } from '../types';
import { Confirm, Empty, ErrorNotice, useAction, usePoll } from '../ui';
import { dollars, localTime, perHour } from '../format';
import { cronProblem, nextFirings } from '../../../src/domain/cron';

/** What the form edits; numbers stay text until sent (an empty field means "no limit"). */
interface ScheduleForm {
  name: string;
  cron: string;
  gpu: string;
  template: string;
  docker_image: string;
  max_duration_hours: string;
  max_cost: string;
  prefer_spot: boolean;
}

const formOf = (s?: Schedule): ScheduleForm => ({
  name: s?.name ?? '',
  cron: s?.cron ?? '0 2 * * *',
  gpu: s?.gpu ?? '',
  template: s?.template ?? '',
  docker_image: s?.docker_image ?? '',
  max_duration_hours: s?.max_duration_hours === null || s === undefined ? '2' : String(s.max_duration_hours),
  max_cost: s?.max_cost === null || s === undefined ? '' : String(s.max_cost),
  prefer_spot: s?.prefer_spot ?? true,
});

/** The body of a create (absent limits left out) or an edit (absent limits cleared with null). */
function bodyOf(f: ScheduleForm, editing: boolean): Record<string, unknown> {
  const none = editing ? null : undefined;
  return {
    name: f.name.trim(),
    cron: f.cron.trim(),
    gpu: f.gpu,
    template: f.template,
    docker_image: f.template === 'custom' ? f.docker_image.trim() : none,
    max_duration_hours: f.max_duration_hours ? Number(f.max_duration_hours) : none,
    max_cost: f.max_cost ? Number(f.max_cost) : none,
    prefer_spot: f.prefer_spot,
  };
}

/** The next firings of a cron as the service computes them, or why it is not a valid one. */
export function CronPreview({ cron, id }: { cron: string; id: string }) {
  const problem = cronProblem(cron);
  if (problem)
    return (
      <p id={id} class="hint" data-testid="cron-preview">
        Not a valid cron: {problem}
      </p>
    );
  const next = nextFirings(cron, new Date(), 5);
  return (
    <div id={id} data-testid="cron-preview">
      <p class="hint">Next runs (shown in your time zone; the cron is UTC):</p>
      <ol class="next-runs">
        {next.map((d) => (
          <li key={d.getTime()}>
            <time dateTime={d.toISOString()}>{d.toLocaleString()}</time>
          </li>
        ))}
      </ol>
    </div>
  );
}

function ScheduleEditor({
  api,
  initial,
  gpus,
  templates,
  submitLabel,
  onDone,
  onCancel,
}: {
  api: Api;
  initial?: Schedule;
  gpus: PricingSnapshot['gpu_types'];
  templates: Template[];
  submitLabel: string;
  onDone: () => Promise<void>;
  onCancel?: () => void;
}) {
  const scopes = useScopes();
  const [form, setForm] = useState<ScheduleForm>(() => formOf(initial));
  const { busy, error, run } = useAction();
  const id = initial ? `schedule-${initial.id}` : 'schedule-new';
  useEffect(() => {
    setForm((f) => ({ ...f, gpu: f.gpu || gpus[0]?.gpu_type || '', template: f.template || templates[0]?.slug || '' }));
  }, [gpus, templates]);
  const set = (k: keyof ScheduleForm) => (e: Event) => {
    const el = e.target as HTMLInputElement;
    setForm({ ...form, [k]: el.type === 'checkbox' ? el.checked : el.value });
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const body = bodyOf(form, initial !== undefined);
      if (initial) await api.request('PUT', `/v1/schedules/${encodeURIComponent(initial.id)}`, body);
      else await api.request('POST', '/v1/schedules', body);
      if (!initial) setForm(formOf());
      await onDone();
    });
  };
  return (
    <form class="stack-form" onSubmit={submit} aria-label={initial ? `Edit ${initial.name}` : 'New schedule'}>
      <div class="inline-form">
        <div>
          <label for={`${id}-name`}>Name</label>
          <input id={`${id}-name`} required value={form.name} onInput={set('name')} />
        </div>
        <div>
          <label for={`${id}-cron`}>Cron (UTC)</label>
          <input
            id={`${id}-cron`}
            required
            value={form.cron}
            aria-describedby={`${id}-preview`}
            onInput={set('cron')}
          />
        </div>
        <div>
          <label for={`${id}-gpu`}>GPU</label>
          <select id={`${id}-gpu`} value={form.gpu} onChange={set('gpu')}>
            {gpus.map((g) => (
              <option key={g.gpu_type} value={g.gpu_type}>
                {g.display_name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for={`${id}-template`}>Image</label>
          <select id={`${id}-template`} value={form.template} onChange={set('template')}>
            {templates.map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.name}
              </option>
            ))}
            <option value="custom">Custom image…</option>
          </select>
        </div>
        {form.template === 'custom' ? (
          <div>
            <label for={`${id}-image`}>Docker image</label>
            <input id={`${id}-image`} required value={form.docker_image} onInput={set('docker_image')} />
          </div>
        ) : null}
        <div>
          <label for={`${id}-hours`}>Stop after (hours)</label>
          <input
            id={`${id}-hours`}
            type="number"
            min="0.1"
            step="0.1"
            placeholder="no limit"
            value={form.max_duration_hours}
            onInput={set('max_duration_hours')}
          />
        </div>
        <div>
          <label for={`${id}-cost`}>or at cost ($)</label>
          <input
            id={`${id}-cost`}
            type="number"
            min="0.01"
            step="0.01"
            placeholder="no limit"
            value={form.max_cost}
            onInput={set('max_cost')}
          />
        </div>
        <div>
          <label for={`${id}-spot`}>
            <input id={`${id}-spot`} type="checkbox" checked={form.prefer_spot} onChange={set('prefer_spot')} /> Prefer
            spot
          </label>
        </div>
      </div>
      <CronPreview cron={form.cron} id={`${id}-preview`} />
      <div class="actions">
        <button
          type="submit"
          disabled={busy || !scopes.allowed('schedules:write')}
          title={scopes.why('schedules:write')}
        >
          {submitLabel}
        </button>
        {onCancel ? (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      <ErrorNotice error={error} />
    </form>
  );
}

function Runs({ api, schedule }: { api: Api; schedule: Schedule }) {
  const runs = usePoll(
    () => api.request<Page<ScheduleRun>>('GET', `/v1/schedules/${encodeURIComponent(schedule.id)}/runs?limit=20`),
    15_000,
    [api, schedule.id],
  );
  if (runs.error) return <ErrorNotice error={runs.error} />;
  if (!runs.data) return <p>Loading runs…</p>;
  if (runs.data.data.length === 0)
    return (
      <Empty>
        No runs yet. The next one starts{' '}
        {schedule.next_run_at ? localTime(schedule.next_run_at) : 'when the schedule is resumed'}.
      </Empty>
    );
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">Runs of {schedule.name}</caption>
        <thead>
          <tr>
            <th scope="col">Scheduled</th>
            <th scope="col">Status</th>
            <th scope="col">Where</th>
            <th scope="col">Price</th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col">Ended</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {runs.data.data.map((r) => (
            <tr key={r.id}>
              <td>{localTime(r.scheduled_at)}</td>
              <td>{r.status}</td>
              <td>{r.provider ? `${r.provider} ${r.instance_id ?? ''}` : '—'}</td>
              <td>{perHour(r.price_per_hour)}</td>
              <td class="num">{dollars(r.cost, 4)}</td>
              <td>{localTime(r.ended_at)}</td>
              <td>{r.stop_reason ?? r.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ScheduleCard({
  api,
  schedule: s,
  gpus,
  templates,
  reload,
}: {
  api: Api;
  schedule: Schedule;
  gpus: PricingSnapshot['gpu_types'];
  templates: Template[];
  reload: () => Promise<void>;
}) {
  const scopes = useScopes();
  const canWrite = scopes.allowed('schedules:write');
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const act = (fn: () => Promise<unknown>) =>
    void action.run(async () => {
      await fn();
      await reload();
    });
  const path = `/v1/schedules/${encodeURIComponent(s.id)}`;
  return (
    <article class="card" data-schedule-id={s.id}>
      <h2>
        {s.name} <small class="tag">{s.status}</small>
      </h2>
      <p>
        <code>{s.cron}</code> (UTC) · {s.gpu} · {s.template === 'custom' ? s.docker_image : s.template}
        {s.prefer_spot ? ' · spot preferred' : ''} · stops after {s.max_duration_hours ?? '∞'} h or{' '}
        {s.max_cost === null ? 'no cost limit' : dollars(s.max_cost)}
      </p>
      <p>
        Next run: {s.status === 'active' ? localTime(s.next_run_at) : 'paused'} · last run: {localTime(s.last_run_at)}
      </p>
      <div class="actions">
        <button type="button" class="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide runs' : 'Run history'}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={action.busy || !canWrite}
          title={scopes.why('schedules:write')}
          onClick={() => act(() => api.request('PUT', path, { status: s.status === 'active' ? 'paused' : 'active' }))}
        >
          {s.status === 'active' ? 'Pause' : 'Resume'}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={action.busy || !canWrite || !scopes.allowed('compute:write')}
          title={scopes.why('schedules:write') ?? scopes.why('compute:write')}
          onClick={() => act(() => api.request('POST', `${path}/trigger`))}
        >
          Run now
        </button>
        <button
          type="button"
          class="secondary"
          aria-expanded={editing}
          disabled={!canWrite}
          title={scopes.why('schedules:write')}
          onClick={() => setEditing(!editing)}
        >
          Edit
        </button>
        <button
          type="button"
          class="danger"
          disabled={action.busy || !canWrite}
          title={scopes.why('schedules:write')}
          onClick={() => setConfirming(true)}
        >
          Delete
        </button>
      </div>
      <ErrorNotice error={action.error} />
      {editing ? (
        <ScheduleEditor
          api={api}
          initial={s}
          gpus={gpus}
          templates={templates}
          submitLabel="Save"
          onDone={async () => {
            setEditing(false);
            await reload();
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}
      {open ? <Runs api={api} schedule={s} /> : null}
      {confirming ? (
        <Confirm
          title="Delete this schedule?"
          confirmLabel="Delete"
          onConfirm={() => {
            setConfirming(false);
            act(() => api.request('DELETE', path));
          }}
          onCancel={() => setConfirming(false)}
        >
          <p>{s.name}: no further runs start, and a run still live ends (its instance is terminated).</p>
        </Confirm>
      ) : null}
    </article>
  );
}

export function SchedulesPage({ api }: { api: Api }) {
  const schedules = usePoll(() => api.request<Page<Schedule>>('GET', '/v1/schedules?limit=200'), 30_000, [api]);
  const [gpus, setGpus] = useState<PricingSnapshot['gpu_types']>([]);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [loadError, setLoadError] = useState<unknown>(null);
  useEffect(() => {
    api.pricing().then((p) => setGpus(p.gpu_types), setLoadError);
    api.request<Page<Template>>('GET', '/v1/templates').then((t) => setTemplates(t.data), setLoadError);
  }, [api]);
  return (
    <section aria-labelledby="schedules-title">
      <h1 id="schedules-title">Schedules</h1>
      <ErrorNotice error={schedules.error} />
      <ErrorNotice error={loadError} />
      {schedules.data && schedules.data.data.length === 0 ? (
        <Empty>No schedules yet: create one below (a cron, a GPU, and the limits that stop each run).</Empty>
      ) : null}
      {schedules.data?.data.map((s) => (
        <ScheduleCard key={s.id} api={api} schedule={s} gpus={gpus} templates={templates} reload={schedules.reload} />
      ))}
      <h2>New schedule</h2>
      <ScheduleEditor
        api={api}
        gpus={gpus}
        templates={templates}
        submitLabel="Create schedule"
        onDone={schedules.reload}
      />
    </section>
  );
}
