/** "Run a job": the launch wizard's offer and plan steps, then the command and its limits. */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { Job, Page, PlannedLaunch, PlanSearch, PricingSnapshot, ProviderId, SshKey, Template } from '../types';
import { ErrorNotice, Link, useAction } from '../ui';
import { PROVIDER_NAMES, perHour } from '../format';
import { navigate } from '../router';
import { GetStarted } from './onboarding';
import { OfferStep, PlanStep } from './launch';

/**
 * Providers that run a job (the server's JOB_PROVIDERS, src/jobs/providers.ts): RunPod and Vast.ai run the image
 * as the instance, Lambda runs it under Docker on the VM.
 */
const JOB_PROVIDERS: ProviderId[] = ['runpod', 'vastai', 'lambda'];

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

/** Step 3: the command, the image and the limits, for the chosen offer. */
function JobForm({
  offer,
  templates,
  settings,
  set,
  busy,
  onSubmit,
}: {
  offer: PlannedLaunch;
  templates: Template[];
  settings: JobSettings;
  set: (k: keyof JobSettings) => (e: Event) => void;
  busy: boolean;
  onSubmit: (e: Event) => void;
}) {
  return (
    <form onSubmit={onSubmit} aria-label="3. The job" class="settings-form">
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
  );
}

export function RunJobPage({ api }: { api: Api }) {
  const scopes = useScopes();
  const [pricing, setPricing] = useState<PricingSnapshot | null>(null);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [search, setSearch] = useState<PlanSearch | null>(null);
  const [offer, setOffer] = useState<PlannedLaunch | null>(null);
  const [plan, setPlan] = useState<PlannedLaunch | null>(null);
  /** Lambda launches no instance without an SSH key: a job there needs the account's default key. */
  const [hasDefaultKey, setHasDefaultKey] = useState(true);
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
    api
      .request<Page<SshKey>>('GET', '/v1/ssh-keys?limit=200')
      .then((k) => setHasDefaultKey(k.data.some((key) => key.is_default)), setError);
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
        retried. RunPod and Vast.ai run jobs in their image; Lambda runs the image under Docker on the VM (with a
        default SSH key).
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
        unusable={(c) =>
          !JOB_PROVIDERS.includes(c.provider)
            ? `${PROVIDER_NAMES[c.provider]} cannot run jobs`
            : c.provider === 'lambda' && !hasDefaultKey
              ? 'Lambda needs a default SSH key (Settings)'
              : null
        }
      />
      {offer ? (
        <JobForm offer={offer} templates={templates} settings={settings} set={set} busy={busy} onSubmit={planIt} />
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
