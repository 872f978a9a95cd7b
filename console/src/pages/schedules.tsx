/**
 * Schedules: create one (./schedule-form), edit, pause/resume, run now, delete; each schedule's run history
 * (./schedule-runs).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { Page, PricingSnapshot, Schedule, Template } from '../types';
import { Confirm, Empty, ErrorNotice, useAction, usePoll } from '../ui';
import { dollars, localTime } from '../format';
import { ScheduleEditor } from './schedule-form';
import { Runs } from './schedule-runs';

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
