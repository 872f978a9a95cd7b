/** Fleet: every instance the account can see, "as of" per provider, stop and terminate with a confirmation. */
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { Instance } from '../types';
import { Confirm, Empty, ErrorNotice, Link, usePoll } from '../ui';
import { GetStarted } from './onboarding';
import { PROVIDER_NAMES, dollars, duration, perHour, timeAgo } from '../format';

const ENDED = new Set(['terminated', 'terminating', 'failed']);
const REFRESH_MS = 5_000;
/** Column widths of the fleet table: a fixed layout sizes 1,000 rows from these instead of measuring every cell. */
const FLEET_COLUMNS = ['17%', '8%', '11%', '9%', '8%', '7%', '8%', '20%', '12%'];

export function sshCommand(i: Pick<Instance, 'ssh'>): string | null {
  if (!i.ssh) return null;
  return `ssh ${i.ssh.user}@${i.ssh.host}${i.ssh.port === 22 ? '' : ` -p ${i.ssh.port}`}`;
}

/** Uptime and cost since launch, for live instances; an estimate from the record's price (the ledger is exact). */
function usage(i: Instance, now: number): { uptime: string; cost: string } {
  if (!i.created_at || ENDED.has(i.status) || i.status === 'provisioning') return { uptime: '—', cost: '—' };
  const ms = now - Date.parse(i.created_at);
  return {
    uptime: duration(ms),
    cost: i.price_per_hour === null ? '—' : `≈ ${dollars((i.price_per_hour * ms) / 3_600_000)}`,
  };
}

export function CopyButton({ text }: { text: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="link"
      aria-label={`Copy: ${text}`}
      onClick={async () => {
        await navigator.clipboard?.writeText(text).catch(() => undefined);
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

export function FleetPage({ api, onAuthError }: { api: Api; onAuthError: (e: unknown) => void }) {
  const scopes = useScopes();
  const list = usePoll(
    () =>
      api.listInstances().catch((e) => {
        onAuthError(e);
        throw e;
      }),
    REFRESH_MS,
    [api],
  );
  const [pending, setPending] = useState<{ action: 'stop' | 'terminate'; instance: Instance } | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const now = Date.now();

  const act = async () => {
    if (!pending) return;
    const { action, instance } = pending;
    setPending(null);
    setBusy(instance.id);
    setActionError(null);
    try {
      await (action === 'stop' ? api.stopInstance(instance.id) : api.terminateInstance(instance.id));
      await list.reload();
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(null);
    }
  };

  const data = list.data;
  const asOf = data?.providers?.length
    ? data.providers.map(
        (p) => `${PROVIDER_NAMES[p.provider]} ${timeAgo(p.observed_at, now)}${p.status === 'stale' ? ' (stale)' : ''}`,
      )
    : list.loadedAt
      ? [`loaded ${timeAgo(new Date(list.loadedAt).toISOString(), now)}`]
      : [];
  return (
    <section aria-labelledby="fleet-title">
      <div class="page-head">
        <h1 id="fleet-title">Fleet</h1>
        <p class="as-of" aria-live="polite">
          {asOf.length ? `As of: ${asOf.join(' · ')}` : 'Loading…'}
        </p>
      </div>
      <ErrorNotice error={list.error} />
      <ErrorNotice error={actionError} />
      {data?.errors?.map((e) => (
        <div class="warning" role="status" key={e.provider}>
          {PROVIDER_NAMES[e.provider]}: {e.message} ({e.code})
        </div>
      ))}
      <GetStarted api={api} />
      {data && data.data.length === 0 ? (
        <Empty>
          No live instances: <Link to="/launch">launch one</Link>, <Link to="/jobs/new">run a job</Link>, or see{' '}
          <Link to="/instances">ended ones</Link>.
        </Empty>
      ) : null}
      {data && data.data.length > 0 ? (
        <div class="table-wrap">
          <table class="fleet">
            <caption class="sr-only">Instances</caption>
            <colgroup>
              {FLEET_COLUMNS.map((w, i) => (
                <col key={i} style={{ width: w }} />
              ))}
            </colgroup>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Provider</th>
                <th scope="col">GPU</th>
                <th scope="col">Status</th>
                <th scope="col">Price</th>
                <th scope="col">Uptime</th>
                <th scope="col">Cost so far</th>
                <th scope="col">SSH</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((i) => {
                const u = usage(i, now);
                const ssh = sshCommand(i);
                // The API acts only on instances launched through it; one made at the provider is managed there.
                const live = !ENDED.has(i.status) && i.managed;
                return (
                  <tr key={`${i.provider}:${i.id}`} data-instance-id={i.id}>
                    <td>
                      {i.managed ? (
                        <Link class="name" to={`/instances/${encodeURIComponent(i.id)}`}>
                          {i.name ?? i.id}
                        </Link>
                      ) : (
                        <span class="name">{i.name ?? i.id}</span>
                      )}
                      {i.managed ? null : <small class="tag">unmanaged</small>}
                    </td>
                    <td>{PROVIDER_NAMES[i.provider] ?? i.provider}</td>
                    <td>
                      {i.gpu_count && i.gpu_count > 1 ? `${i.gpu_count}× ` : ''}
                      {i.gpu_type ?? '—'}
                      {i.spot ? <small class="tag">spot</small> : null}
                    </td>
                    <td>
                      <span class={`status status-${i.status}`}>{i.status}</span>
                    </td>
                    <td>{perHour(i.price_per_hour)}</td>
                    <td>{u.uptime}</td>
                    <td title="Estimated from the price since launch; the transactions are exact">{u.cost}</td>
                    <td>
                      {ssh ? (
                        <>
                          <code>{ssh}</code> <CopyButton text={ssh} />
                        </>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td class="actions">
                      {live && i.provider === 'runpod' && i.status === 'running' ? (
                        <button
                          type="button"
                          class="secondary"
                          disabled={busy === i.id || !scopes.allowed('compute:write')}
                          title={scopes.why('compute:write')}
                          onClick={() => setPending({ action: 'stop', instance: i })}
                        >
                          Stop
                        </button>
                      ) : null}
                      {live ? (
                        <button
                          type="button"
                          class="danger"
                          disabled={busy === i.id || !scopes.allowed('compute:write')}
                          title={scopes.why('compute:write')}
                          onClick={() => setPending({ action: 'terminate', instance: i })}
                        >
                          Terminate
                        </button>
                      ) : null}
                      {i.managed ? null : (
                        <small
                          title={
                            'Made outside this service: stop or terminate it at ' +
                            (PROVIDER_NAMES[i.provider] ?? i.provider)
                          }
                        >
                          at the provider
                        </small>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {data && data.data.length > 0 ? (
        <p>
          <Link to="/instances">Ended instances</Link> and what each cost.
        </p>
      ) : null}
      {pending ? (
        <Confirm
          title={pending.action === 'stop' ? 'Stop this instance?' : 'Terminate this instance?'}
          confirmLabel={pending.action === 'stop' ? 'Stop' : 'Terminate'}
          onConfirm={act}
          onCancel={() => setPending(null)}
        >
          <p>
            {pending.instance.name ?? pending.instance.id} at {PROVIDER_NAMES[pending.instance.provider]}.{' '}
            {pending.action === 'terminate'
              ? 'Its disk is deleted; this cannot be undone.'
              : 'Billing for compute stops; the disk is kept.'}
          </p>
        </Confirm>
      ) : null}
    </section>
  );
}
