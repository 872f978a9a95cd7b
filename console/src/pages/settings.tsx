/** Webhooks (endpoints, the delivery log with every attempt, test and retry) and settings (provider keys, SSH keys). */
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { Delivery, Page, ProviderKey, SshKey, Webhook } from '../types';
import { Empty, ErrorNotice, usePoll } from '../ui';
import { localTime } from '../format';
import { ApiKeysSection } from './api-keys';

function Deliveries({ api, webhook }: { api: Api; webhook: Webhook }) {
  const scopes = useScopes();
  const log = usePoll(
    () => api.request<Page<Delivery>>('GET', `/v1/webhooks/${encodeURIComponent(webhook.id)}/deliveries?limit=50`),
    10_000,
    [api, webhook.id],
  );
  const [error, setError] = useState<unknown>(null);
  const retry = async (id: string) => {
    setError(null);
    try {
      await api.request(
        'POST',
        `/v1/webhooks/${encodeURIComponent(webhook.id)}/deliveries/${encodeURIComponent(id)}/retry`,
      );
      await log.reload();
    } catch (err) {
      setError(err);
    }
  };
  if (log.error) return <ErrorNotice error={log.error} />;
  if (!log.data) return <p>Loading deliveries…</p>;
  if (log.data.data.length === 0) return <Empty>No deliveries yet. Send a test event to check the endpoint.</Empty>;
  return (
    <>
      <ErrorNotice error={error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Deliveries to {webhook.url}</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">
                <span class="sr-only">Retry</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {log.data.data.map((d) => (
              <tr key={d.id}>
                <td>
                  {d.event.type}
                  <br />
                  <small>{localTime(d.event.created_at)}</small>
                </td>
                <td>
                  {d.status}
                  {d.next_attempt_at ? (
                    <>
                      <br />
                      <small>next {localTime(d.next_attempt_at)}</small>
                    </>
                  ) : null}
                </td>
                <td>
                  <ol class="attempts">
                    {d.attempts.map((a, i) => (
                      <li key={i}>
                        {localTime(a.attempted_at)}: {a.status_code ?? 'no answer'}
                        {a.error ? ` (${a.error})` : ''}, {Math.round(a.latency_ms)} ms
                      </li>
                    ))}
                  </ol>
                </td>
                <td>
                  {d.status !== 'pending' ? (
                    <button
                      type="button"
                      class="link"
                      disabled={!scopes.allowed('webhooks:write')}
                      title={scopes.why('webhooks:write')}
                      onClick={() => void retry(d.id)}
                    >
                      Retry
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export function WebhooksPage({ api }: { api: Api }) {
  const scopes = useScopes();
  const hooks = usePoll(() => api.request<Page<Webhook>>('GET', '/v1/webhooks?limit=200'), 30_000, [api]);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const test = async (id: string) => {
    setError(null);
    try {
      await api.request('POST', `/v1/webhooks/${encodeURIComponent(id)}/test`);
      setNotice('Test event sent; it appears in the delivery log.');
      setOpen(id);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <ErrorNotice error={hooks.error} />
      <ErrorNotice error={error} />
      {notice ? <p role="status">{notice}</p> : null}
      {hooks.data && hooks.data.data.length === 0 ? (
        <Empty>
          No webhook endpoints. Register one with <code>POST /v1/webhooks</code> to receive signed events.
        </Empty>
      ) : null}
      {hooks.data?.data.map((w) => (
        <article key={w.id} class="card">
          <h2>
            <code class="wrap">{w.url}</code> <small class="tag">{w.active ? 'active' : 'inactive'}</small>
          </h2>
          <p>{w.events.join(', ')}</p>
          <div class="actions">
            <button
              type="button"
              class="secondary"
              disabled={!scopes.allowed('webhooks:write')}
              title={scopes.why('webhooks:write')}
              onClick={() => void test(w.id)}
            >
              Send test event
            </button>
            <button
              type="button"
              class="secondary"
              aria-expanded={open === w.id}
              onClick={() => setOpen(open === w.id ? null : w.id)}
            >
              {open === w.id ? 'Hide deliveries' : 'Delivery log'}
            </button>
          </div>
          {open === w.id ? <Deliveries api={api} webhook={w} /> : null}
        </article>
      ))}
    </section>
  );
}

export function SettingsPage({ api }: { api: Api }) {
  const scopes = useScopes();
  const providers = usePoll(() => api.request<Page<ProviderKey>>('GET', '/v1/settings/providers'), 0, [api]);
  const ssh = usePoll(() => api.request<Page<SshKey>>('GET', '/v1/ssh-keys?limit=200'), 0, [api]);
  const [error, setError] = useState<unknown>(null);
  const [verified, setVerified] = useState<Record<string, string>>({});
  const act = async (fn: () => Promise<unknown>, reload: () => Promise<void>) => {
    setError(null);
    try {
      await fn();
      await reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <ErrorNotice error={error} />
      <h2>Provider keys</h2>
      <ErrorNotice error={providers.error} />
      {providers.data && providers.data.data.length === 0 ? (
        <Empty>
          No provider connected. Connect your RunPod, Vast.ai or Lambda key with{' '}
          <code>POST /v1/settings/providers</code>.
        </Empty>
      ) : null}
      {providers.data && providers.data.data.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Provider keys</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Key</th>
                <th scope="col">Status</th>
                <th scope="col">Verified</th>
                <th scope="col">
                  <span class="sr-only">Verify</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {providers.data.data.map((k) => (
                <tr key={k.provider}>
                  <td>{k.display_label}</td>
                  <td>
                    <code>{k.key_hint}</code>
                  </td>
                  <td>
                    {k.status}
                    {verified[k.provider] ? ` (${verified[k.provider]})` : ''}
                  </td>
                  <td>{localTime(k.last_verified_at)}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      disabled={!scopes.allowed('settings:write')}
                      title={scopes.why('settings:write')}
                      onClick={() =>
                        void act(async () => {
                          const r = await api.request<{ message: string }>(
                            'POST',
                            `/v1/settings/providers/${k.provider}/verify`,
                          );
                          setVerified((v) => ({ ...v, [k.provider]: r.message }));
                        }, providers.reload)
                      }
                    >
                      Verify
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <h2>SSH keys</h2>
      <ErrorNotice error={ssh.error} />
      {ssh.data && ssh.data.data.length === 0 ? (
        <Empty>
          No SSH keys. Add one with <code>POST /v1/ssh-keys</code>: the default key is installed on every new instance.
        </Empty>
      ) : null}
      {ssh.data && ssh.data.data.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">SSH keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Fingerprint</th>
                <th scope="col">Default</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {ssh.data.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.fingerprint}</code>
                  </td>
                  <td>{k.is_default ? 'default' : ''}</td>
                  <td class="actions">
                    {k.is_default ? null : (
                      <button
                        type="button"
                        class="secondary"
                        disabled={!scopes.allowed('settings:write')}
                        title={scopes.why('settings:write')}
                        onClick={() =>
                          void act(
                            () => api.request('PUT', `/v1/ssh-keys/${encodeURIComponent(k.id)}/default`),
                            ssh.reload,
                          )
                        }
                      >
                        Make default
                      </button>
                    )}
                    <button
                      type="button"
                      class="link"
                      disabled={!scopes.allowed('settings:write')}
                      title={scopes.why('settings:write')}
                      onClick={() =>
                        void act(() => api.request('DELETE', `/v1/ssh-keys/${encodeURIComponent(k.id)}`), ssh.reload)
                      }
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <ApiKeysSection api={api} />
    </section>
  );
}
