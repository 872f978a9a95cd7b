/**
 * A schedule's form, to create or edit one: a five-field UTC cron with its next firings previewed as it is
 * typed, a GPU, an image, and the limits that stop each run.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { PricingSnapshot, Schedule, Template } from '../types';
import { ErrorNotice, useAction } from '../ui';
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

export function ScheduleEditor({
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
