/**
 * Launch: GPU → offers ranked across providers (POST /v1/compute/plan without a provider) → settings (image,
 * disk, volume, SSH key, on-start command, idle stop: off by default, not offered for Lambda) →
 * the plan of that exact body (price, warnings, what the balance and the key's cap say) → launch, then the
 * instance booting live until `running`.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import { ApiError } from '../api';
import type { Instance, Page, PlannedLaunch, PlanSearch, PricingSnapshot, SshKey, Template } from '../types';
import { Empty, ErrorNotice, Link, useAction } from '../ui';
import { PROVIDER_NAMES, perHour } from '../format';
import { Booting } from './booting';
import { GetStarted } from './onboarding';
import { launchBody, NO_SETTINGS, SettingsForm, type Settings } from './launch-settings';

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

/**
 * Steps 1 and 2, shared by the launch wizard and the job form: the GPU, count and spot preference, then the offers
 * across providers ranked by POST /v1/compute/plan, one chosen. `unusable` names why an offer cannot be chosen here.
 */
export function OfferStep({
  gpus,
  busy,
  search,
  offer,
  onFind,
  onChoose,
  unusable,
}: {
  gpus: PricingSnapshot['gpu_types'];
  busy: boolean;
  search: PlanSearch | null;
  offer: PlannedLaunch | null;
  onFind: (body: { gpu_type: string; gpu_count: number; spot: boolean }) => void;
  onChoose: (offer: PlannedLaunch) => void;
  unusable?: (offer: PlannedLaunch) => string | null;
}) {
  const [gpu, setGpu] = useState('');
  const [count, setCount] = useState('1');
  const [spot, setSpot] = useState(false);
  const selected = gpu || gpus[0]?.gpu_type || '';
  return (
    <>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          onFind({ gpu_type: selected, gpu_count: Number(count), spot });
        }}
        aria-label="1. GPU"
      >
        <div>
          <label for="launch-gpu">GPU</label>
          <select id="launch-gpu" value={selected} onChange={(e) => setGpu((e.target as HTMLSelectElement).value)}>
            {gpus.map((g) => (
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
        <button type="submit" disabled={busy || !selected}>
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
              {search.candidates.map((c, i) => {
                const why = unusable?.(c) ?? null;
                return (
                  <tr key={i} aria-selected={offer === c}>
                    <td>{PROVIDER_NAMES[c.provider]}</td>
                    <td>{perHour(c.price_per_hour)}</td>
                    <td>{c.availability ?? '—'}</td>
                    <td>{c.spot ? 'spot' : 'on-demand'}</td>
                    <td>{c.region ?? 'any'}</td>
                    <td>
                      {c.admitted ? 'admitted' : `${c.refusal?.status} ${c.refusal?.code}: ${c.refusal?.message}`}
                      {why ? <small> ({why})</small> : null}
                    </td>
                    <td>
                      <button
                        type="button"
                        class="secondary"
                        aria-pressed={offer === c}
                        disabled={why !== null}
                        title={why ?? undefined}
                        onClick={() => onChoose(c)}
                      >
                        Choose
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}

/** Step 4: the plan of the exact body about to be sent (price, warnings, what the balance and the key's cap say). */
export function PlanStep({ plan, children }: { plan: PlannedLaunch; children: ComponentChildren }) {
  return (
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
      {children}
    </div>
  );
}

export function LaunchPage({ api }: { api: Api }) {
  const scopes = useScopes();
  const [pricing, setPricing] = useState<PricingSnapshot | null>(null);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [sshKeys, setSshKeys] = useState<SshKey[]>([]);
  const [search, setSearch] = useState<PlanSearch | null>(null);
  const [offer, setOffer] = useState<PlannedLaunch | null>(null);
  const [settings, setSettings] = useState<Settings>(NO_SETTINGS);
  const [plan, setPlan] = useState<PlannedLaunch | null>(null);
  const [launched, setLaunched] = useState<Instance | null>(null);
  const { busy, error, setError, run } = useAction();

  useEffect(() => {
    api.pricing().then(setPricing, setError);
    api.request<Page<Template>>('GET', '/v1/templates').then((t) => {
      setTemplates(t.data);
      setSettings((s) => ({ ...s, template: s.template || t.data[0]?.slug || 'custom' }));
    }, setError);
    api.request<Page<SshKey>>('GET', '/v1/ssh-keys?limit=200').then((k) => setSshKeys(k.data), setError);
  }, [api]);

  const findOffers = (body: { gpu_type: string; gpu_count: number; spot: boolean }) => {
    setOffer(null);
    setPlan(null);
    setSearch(null);
    void run(async () => setSearch(await api.request<PlanSearch>('POST', '/v1/compute/plan', body)));
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
  return (
    <section aria-labelledby="launch-title">
      <h1 id="launch-title">Launch an instance</h1>
      <GetStarted api={api} />
      {pricing && pricing.gpu_types.length === 0 ? (
        <Empty>
          No offers yet: <Link to="/settings">connect a provider key</Link> and prices appear at the next refresh.
        </Empty>
      ) : null}
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
      />
      {offer ? (
        <SettingsForm
          offer={offer}
          settings={settings}
          setSettings={setSettings}
          templates={templates}
          sshKeys={sshKeys}
          busy={busy}
          onSubmit={planIt}
        />
      ) : null}
      {plan ? (
        <PlanStep plan={plan}>
          <button
            type="button"
            onClick={launch}
            disabled={busy || !plan.admitted || !scopes.allowed('compute:write')}
            title={scopes.why('compute:write')}
          >
            {busy ? 'Launching…' : `Launch at ${perHour(plan.price_per_hour)}`}
          </button>
        </PlanStep>
      ) : null}
      <ErrorNotice error={error} />
    </section>
  );
}
