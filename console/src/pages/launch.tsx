/**
 * Launch: GPU → offers ranked across providers (POST /v1/compute/plan without a provider) → settings (image,
 * disk, volume, SSH key, on-start command, idle stop: off by default, not offered for Lambda) →
 * the plan of that exact body (price, warnings, what the balance and the key's cap say) → launch, then the
 * instance booting live until `running`.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import { ApiError } from '../api';
import type { Instance, Page, PlannedLaunch, PlanSearch, PricingSnapshot, SshKey, Template } from '../types';
import { Empty, ErrorNotice, useAction } from '../ui';
import { perHour } from '../format';
import { navigate } from '../router';

const NAMES = { runpod: 'RunPod', vastai: 'Vast.ai', lambda: 'Lambda' } as const;

function RefusalNotice({ refusal }: { refusal: PlannedLaunch['refusal'] }) {
  if (!refusal) return null;
  return (
    <ErrorNotice
      error={
        new ApiError(refusal.status, refusal.code, refusal.message, (refusal.details ?? []) as ApiError['details'])
      }
    />
  );
}

interface Settings {
  name: string;
  template: string;
  docker_image: string;
  disk_gb: string;
  volume_gb: string;
  ssh_key_name: string;
  onstart_cmd: string;
  /** Idle stop (`idle_stop`): off by default; runpod and vastai only (Lambda reports no GPU utilization). */
  idle_stop: boolean;
  idle_percent: string;
  idle_minutes: string;
}

const NO_SETTINGS: Settings = {
  name: '',
  template: '',
  docker_image: '',
  disk_gb: '',
  volume_gb: '',
  ssh_key_name: '',
  onstart_cmd: '',
  idle_stop: false,
  idle_percent: '10',
  idle_minutes: '30',
};

/** The launch body for an offer and the settings, with only the fields that provider takes. */
export function launchBody(offer: PlannedLaunch, s: Settings, templates: Template[]): Record<string, unknown> {
  const body: Record<string, unknown> = { ...offer.launch };
  const image =
    s.template === 'custom' ? s.docker_image.trim() : templates.find((t) => t.slug === s.template)?.docker_image;
  if (image) body.docker_image = image;
  if (s.name.trim()) body.name = s.name.trim();
  if (s.disk_gb) body.disk_gb = Number(s.disk_gb);
  if (offer.provider === 'runpod' && s.volume_gb) body.volume_gb = Number(s.volume_gb);
  if (offer.provider === 'lambda' && s.ssh_key_name) body.ssh_key_name = s.ssh_key_name;
  if (offer.provider === 'vastai' && s.onstart_cmd.trim()) body.onstart_cmd = s.onstart_cmd;
  if (offer.provider !== 'lambda' && s.idle_stop) {
    body.idle_stop = { utilization_below_percent: Number(s.idle_percent), for_minutes: Number(s.idle_minutes) };
  }
  return body;
}

export function LaunchPage({ api }: { api: Api }) {
  const scopes = useScopes();
  const [pricing, setPricing] = useState<PricingSnapshot | null>(null);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [sshKeys, setSshKeys] = useState<SshKey[]>([]);
  const [gpu, setGpu] = useState('');
  const [count, setCount] = useState('1');
  const [spot, setSpot] = useState(false);
  const [search, setSearch] = useState<PlanSearch | null>(null);
  const [offer, setOffer] = useState<PlannedLaunch | null>(null);
  const [settings, setSettings] = useState<Settings>(NO_SETTINGS);
  const [plan, setPlan] = useState<PlannedLaunch | null>(null);
  const [launched, setLaunched] = useState<Instance | null>(null);
  const { busy, error, setError, run } = useAction();

  useEffect(() => {
    api.pricing().then((p) => {
      setPricing(p);
      setGpu((g) => g || p.gpu_types[0]?.gpu_type || '');
    }, setError);
    api.request<Page<Template>>('GET', '/v1/templates').then((t) => {
      setTemplates(t.data);
      setSettings((s) => ({ ...s, template: s.template || t.data[0]?.slug || 'custom' }));
    }, setError);
    api.request<Page<SshKey>>('GET', '/v1/ssh-keys?limit=200').then((k) => setSshKeys(k.data), setError);
  }, [api]);

  const findOffers = (e: Event) => {
    e.preventDefault();
    setOffer(null);
    setPlan(null);
    void run(async () =>
      setSearch(
        await api.request<PlanSearch>('POST', '/v1/compute/plan', { gpu_type: gpu, gpu_count: Number(count), spot }),
      ),
    );
  };
  const planIt = (e: Event) => {
    e.preventDefault();
    if (offer)
      void run(async () =>
        setPlan(await api.request<PlannedLaunch>('POST', '/v1/compute/plan', launchBody(offer, settings, templates))),
      );
  };
  const launch = () => {
    if (!plan || !offer) return;
    void run(async () =>
      setLaunched(await api.request<Instance>('POST', '/v1/compute/launch', launchBody(offer, settings, templates))),
    );
  };

  if (launched) return <Booting api={api} instance={launched} />;
  const set = (k: keyof Settings) => (e: Event) =>
    setSettings({
      ...settings,
      [k]:
        (e.target as HTMLInputElement).type === 'checkbox'
          ? (e.target as HTMLInputElement).checked
          : (e.target as HTMLInputElement).value,
    });
  return (
    <section aria-labelledby="launch-title">
      <h1 id="launch-title">Launch an instance</h1>
      <ErrorNotice error={error} />
      <form class="inline-form" onSubmit={findOffers} aria-label="1. GPU">
        <div>
          <label for="launch-gpu">GPU</label>
          <select id="launch-gpu" value={gpu} onChange={(e) => setGpu((e.target as HTMLSelectElement).value)}>
            {pricing?.gpu_types.map((g) => (
              <option key={g.gpu_type} value={g.gpu_type}>
                {g.display_name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="launch-count">GPUs</label>
          <input
            id="launch-count"
            type="number"
            min="1"
            max="8"
            value={count}
            onInput={(e) => setCount((e.target as HTMLInputElement).value)}
          />
        </div>
        <div>
          <label for="launch-spot">
            <input
              id="launch-spot"
              type="checkbox"
              checked={spot}
              onChange={(e) => setSpot((e.target as HTMLInputElement).checked)}
            />{' '}
            Spot first
          </label>
        </div>
        <button type="submit" disabled={busy || !gpu}>
          Find offers
        </button>
      </form>
      {search && search.candidates.length === 0 ? <Empty>No offers for this GPU right now.</Empty> : null}
      {search && search.candidates.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption>2. Offers, cheapest admitted first</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Price</th>
                <th scope="col">Available</th>
                <th scope="col">Spot</th>
                <th scope="col">Region</th>
                <th scope="col">Admission</th>
                <th scope="col">
                  <span class="sr-only">Choose</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {search.candidates.map((c, i) => (
                <tr key={i} aria-selected={offer === c}>
                  <td>{NAMES[c.provider]}</td>
                  <td>{perHour(c.price_per_hour)}</td>
                  <td>{c.availability ?? '—'}</td>
                  <td>{c.spot ? 'spot' : 'on-demand'}</td>
                  <td>{c.region ?? 'any'}</td>
                  <td>{c.admitted ? 'admitted' : `${c.refusal?.status} ${c.refusal?.code}: ${c.refusal?.message}`}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      aria-pressed={offer === c}
                      onClick={() => {
                        setOffer(c);
                        setPlan(null);
                      }}
                    >
                      Choose
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {offer ? (
        <form onSubmit={planIt} aria-label="3. Settings" class="settings-form">
          <h2>
            3. Settings for {NAMES[offer.provider]} {offer.gpu_count}× {offer.gpu_type}
          </h2>
          <div class="inline-form">
            <div>
              <label for="launch-name">Name</label>
              <input id="launch-name" value={settings.name} placeholder="optional" onInput={set('name')} />
            </div>
            <div>
              <label for="launch-template">Image</label>
              <select id="launch-template" value={settings.template} onChange={set('template')}>
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
                <label for="launch-image">Docker image</label>
                <input id="launch-image" required value={settings.docker_image} onInput={set('docker_image')} />
              </div>
            ) : null}
            <div>
              <label for="launch-disk">Disk (GB)</label>
              <input
                id="launch-disk"
                type="number"
                min="5"
                value={settings.disk_gb}
                placeholder="default"
                onInput={set('disk_gb')}
              />
            </div>
            {offer.provider === 'runpod' ? (
              <div>
                <label for="launch-volume">Volume (GB)</label>
                <input
                  id="launch-volume"
                  type="number"
                  min="10"
                  value={settings.volume_gb}
                  placeholder="none"
                  onInput={set('volume_gb')}
                />
              </div>
            ) : null}
            {offer.provider === 'lambda' ? (
              <div>
                <label for="launch-ssh">SSH key</label>
                <select id="launch-ssh" value={settings.ssh_key_name} onChange={set('ssh_key_name')}>
                  <option value="">The default key</option>
                  {sshKeys.map((k) => (
                    <option key={k.id} value={k.name}>
                      {k.name}
                    </option>
                  ))}
                </select>
              </div>
            ) : (
              <p class="hint">
                The account's default SSH key is installed
                {sshKeys.length === 0 ? ' (none yet: add one in settings)' : ''}.
              </p>
            )}
            {offer.provider === 'vastai' ? (
              <div>
                <label for="launch-onstart">On-start command</label>
                <input id="launch-onstart" value={settings.onstart_cmd} onInput={set('onstart_cmd')} />
              </div>
            ) : null}
          </div>
          {offer.provider === 'lambda' ? (
            <p class="hint">Idle stop is not available: Lambda reports no GPU utilization.</p>
          ) : (
            <fieldset class="inline-form">
              <legend>Idle stop</legend>
              <div>
                <label for="launch-idle">
                  <input id="launch-idle" type="checkbox" checked={settings.idle_stop} onChange={set('idle_stop')} />{' '}
                  {offer.provider === 'runpod' ? 'Stop' : 'Terminate'} when idle
                </label>
              </div>
              {settings.idle_stop ? (
                <>
                  <div>
                    <label for="launch-idle-percent">Every GPU below (%)</label>
                    <input
                      id="launch-idle-percent"
                      type="number"
                      min="1"
                      max="100"
                      required
                      value={settings.idle_percent}
                      onInput={set('idle_percent')}
                    />
                  </div>
                  <div>
                    <label for="launch-idle-minutes">For (minutes)</label>
                    <input
                      id="launch-idle-minutes"
                      type="number"
                      min="1"
                      step="1"
                      required
                      value={settings.idle_minutes}
                      onInput={set('idle_minutes')}
                    />
                  </div>
                </>
              ) : null}
            </fieldset>
          )}
          <button type="submit" disabled={busy}>
            Review the plan
          </button>
        </form>
      ) : null}
      {plan ? (
        <div class="plan" aria-live="polite">
          <h2>4. Plan</h2>
          <p>
            Price: <strong data-testid="plan-price">{perHour(plan.price_per_hour)}</strong> for the whole instance
            {plan.availability !== null ? `, ${plan.availability} available now` : ''}.
          </p>
          {plan.warnings.length > 0 ? (
            <ul class="warning">
              {plan.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          ) : null}
          {plan.admitted ? (
            <p role="status">Your balance and this key's spend cap admit it.</p>
          ) : (
            <RefusalNotice refusal={plan.refusal} />
          )}
          <button
            type="button"
            onClick={launch}
            disabled={busy || !plan.admitted || !scopes.allowed('compute:write')}
            title={scopes.why('compute:write')}
          >
            {busy ? 'Launching…' : `Launch at ${perHour(plan.price_per_hour)}`}
          </button>
        </div>
      ) : null}
    </section>
  );
}

/** After the launch: the instance from the fleet view, live, until it runs (or fails). */
function Booting({ api, instance }: { api: Api; instance: Instance }) {
  const [current, setCurrent] = useState<Instance>(instance);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (current.status === 'running' || current.status === 'failed' || current.status === 'terminated')
      return undefined;
    const timer = setTimeout(() => {
      api.listInstances().then((list) => {
        const found = list.data.find((i) => i.id === instance.id && i.provider === instance.provider);
        if (found) setCurrent(found);
        setError(null);
      }, setError);
    }, 1000);
    return () => clearTimeout(timer);
  }, [api, current]);
  return (
    <section aria-labelledby="booting-title">
      <h1 id="booting-title">{current.name ?? current.id}</h1>
      <p role="status">
        Status:{' '}
        <span class={`status status-${current.status}`} data-testid="launch-status">
          {current.status}
        </span>
        {current.status === 'provisioning' ? ' (the provider is starting it)' : ''}
      </p>
      <ErrorNotice error={error} />
      <p>
        {NAMES[current.provider]} · {perHour(current.price_per_hour)} · id <code>{current.id}</code>
      </p>
      {current.idle_stop ? (
        <p data-testid="launch-idle-stop">
          Idle stop: {current.provider === 'runpod' ? 'stopped' : 'terminated'} once every GPU is below{' '}
          {current.idle_stop.utilization_below_percent}% for {current.idle_stop.for_minutes} min.
        </p>
      ) : null}
      {current.ssh ? (
        <p>
          SSH:{' '}
          <code>
            ssh {current.ssh.user}@{current.ssh.host} -p {current.ssh.port}
          </code>
        </p>
      ) : null}
      <p>
        <a
          href="/console/fleet"
          onClick={(e) => {
            e.preventDefault();
            navigate('/fleet');
          }}
        >
          Go to the fleet
        </a>
      </p>
    </section>
  );
}
