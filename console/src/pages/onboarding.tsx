/**
 * The first-run path and the two resources it needs: provider keys (connect, verified on the spot with the
 * provider's answer shown; verify again; disconnect) and SSH keys (add, with how to make one; default; delete).
 * `GetStarted` lists the steps with what is done and links to the one missing.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { Page, ProviderId, ProviderKey, SshKey } from '../types';
import { Empty, ErrorNotice, Link, useAction, usePoll } from '../ui';
import { PROVIDER_NAMES, localTime } from '../format';

const PROVIDERS: ProviderId[] = ['runpod', 'vastai', 'lambda'];
const KEY_PAGES: Record<ProviderId, string> = {
  runpod: 'RunPod: Settings › API Keys',
  vastai: 'Vast.ai: Account › API Keys',
  lambda: 'Lambda: Settings › API keys',
};

interface Verification {
  valid: boolean;
  message: string;
  checked_at: string;
}

export function ProviderKeysSection({ api }: { api: Api }) {
  const scopes = useScopes();
  const keys = usePoll(() => api.request<Page<ProviderKey>>('GET', '/v1/settings/providers'), 0, [api]);
  const [provider, setProvider] = useState<ProviderId>('runpod');
  const [secret, setSecret] = useState('');
  const [answers, setAnswers] = useState<Partial<Record<ProviderId, Verification>>>({});
  const connect = useAction();
  const row = useAction();
  const verify = async (p: ProviderId) => {
    const r = await api.request<Verification>('POST', `/v1/settings/providers/${p}/verify`);
    setAnswers((a) => ({ ...a, [p]: r }));
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void connect.run(async () => {
      await api.request('POST', '/v1/settings/providers', { provider, api_key: secret.trim() });
      setSecret('');
      // The connect verified the key already; asking again shows the provider's own words.
      await verify(provider);
      await keys.reload();
    });
  };
  const canWrite = scopes.allowed('settings:write');
  return (
    <section aria-labelledby="provider-keys-title">
      <h2 id="provider-keys-title">Provider keys</h2>
      <ErrorNotice error={keys.error} />
      {keys.data && keys.data.data.length === 0 ? (
        <Empty>
          No provider connected yet: connect a RunPod, Vast.ai or Lambda key below to see offers and launch.
        </Empty>
      ) : null}
      {keys.data && keys.data.data.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Connected provider keys</caption>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Key</th>
                <th scope="col">Status</th>
                <th scope="col">Verified</th>
                <th scope="col">The provider says</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((k) => (
                <tr key={k.provider} data-provider={k.provider}>
                  <td>{k.display_label}</td>
                  <td>
                    <code>{k.key_hint}</code>
                  </td>
                  <td>
                    <span class={`status status-${k.status}`}>{k.status}</span>
                  </td>
                  <td>{localTime(answers[k.provider]?.checked_at ?? k.last_verified_at)}</td>
                  <td data-testid={`provider-answer-${k.provider}`}>{answers[k.provider]?.message ?? ''}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      disabled={row.busy || !canWrite}
                      title={scopes.why('settings:write')}
                      onClick={() =>
                        void row.run(async () => {
                          await verify(k.provider);
                          await keys.reload();
                        })
                      }
                    >
                      Verify
                    </button>
                    <button
                      type="button"
                      class="link"
                      disabled={row.busy || !canWrite}
                      title={scopes.why('settings:write')}
                      onClick={() =>
                        void row.run(async () => {
                          await api.request('DELETE', `/v1/settings/providers/${k.provider}`);
                          await keys.reload();
                        })
                      }
                    >
                      Disconnect
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <ErrorNotice error={row.error} />
      <form class="inline-form" onSubmit={submit} aria-label="Connect a provider key" autocomplete="off">
        <div>
          <label for="provider-name">Provider</label>
          <select
            id="provider-name"
            value={provider}
            onChange={(e) => setProvider((e.target as HTMLSelectElement).value as ProviderId)}
          >
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {PROVIDER_NAMES[p]}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="provider-key">API key</label>
          <input
            id="provider-key"
            type="password"
            required
            value={secret}
            onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" disabled={connect.busy || !canWrite} title={scopes.why('settings:write')}>
          {connect.busy ? 'Checking with the provider…' : 'Connect and verify'}
        </button>
      </form>
      <p class="hint">
        Where to find it: {KEY_PAGES[provider]}. The key is checked with the provider before it is saved, stored
        encrypted, and never shown again (only its last characters).
      </p>
      <ErrorNotice error={connect.error} />
      {answers[provider] && !connect.busy && !connect.error ? (
        <p role="status" data-testid="connect-answer">
          {PROVIDER_NAMES[provider]}: {answers[provider]!.valid ? 'key accepted' : 'key rejected'}:{' '}
          {answers[provider]!.message}
        </p>
      ) : null}
    </section>
  );
}

export function SshKeysSection({ api }: { api: Api }) {
  const scopes = useScopes();
  const keys = usePoll(() => api.request<Page<SshKey>>('GET', '/v1/ssh-keys?limit=200'), 0, [api]);
  const [name, setName] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const add = useAction();
  const row = useAction();
  const canWrite = scopes.allowed('settings:write');
  const submit = (e: Event) => {
    e.preventDefault();
    void add.run(async () => {
      await api.request('POST', '/v1/ssh-keys', { name: name.trim(), public_key: publicKey.trim() });
      setName('');
      setPublicKey('');
      await keys.reload();
    });
  };
  return (
    <section aria-labelledby="ssh-keys-title">
      <h2 id="ssh-keys-title">SSH keys</h2>
      <ErrorNotice error={keys.error} />
      {keys.data && keys.data.data.length === 0 ? (
        <Empty>No SSH keys yet: add one below. The default key is installed on every new instance.</Empty>
      ) : null}
      {keys.data && keys.data.data.length > 0 ? (
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
              {keys.data.data.map((k) => (
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
                        disabled={row.busy || !canWrite}
                        title={scopes.why('settings:write')}
                        onClick={() =>
                          void row.run(async () => {
                            await api.request('PUT', `/v1/ssh-keys/${encodeURIComponent(k.id)}/default`);
                            await keys.reload();
                          })
                        }
                      >
                        Make default
                      </button>
                    )}
                    <button
                      type="button"
                      class="link"
                      disabled={row.busy || !canWrite}
                      title={scopes.why('settings:write')}
                      onClick={() =>
                        void row.run(async () => {
                          await api.request('DELETE', `/v1/ssh-keys/${encodeURIComponent(k.id)}`);
                          await keys.reload();
                        })
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
      <ErrorNotice error={row.error} />
      <form class="stack-form" onSubmit={submit} aria-label="Add an SSH key">
        <div>
          <label for="ssh-name">Name</label>
          <input
            id="ssh-name"
            required
            value={name}
            placeholder="laptop"
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </div>
        <div>
          <label for="ssh-public-key">Public key</label>
          <textarea
            id="ssh-public-key"
            required
            rows={3}
            value={publicKey}
            placeholder="ssh-ed25519 AAAA… you@laptop"
            onInput={(e) => setPublicKey((e.target as HTMLTextAreaElement).value)}
          />
        </div>
        <button type="submit" disabled={add.busy || !canWrite} title={scopes.why('settings:write')}>
          Add SSH key
        </button>
      </form>
      <ErrorNotice error={add.error} />
      <details>
        <summary>No key yet? Make one</summary>
        <p>On your computer, run:</p>
        <pre>
          <code>ssh-keygen -t ed25519 -f ~/.ssh/gpuo -C "$(whoami)@gpuo"</code>
        </pre>
        <p>
          then paste the contents of <code>~/.ssh/gpuo.pub</code> above (the <code>.pub</code> file; the other one is
          private and stays on your computer). Connect with <code>ssh -i ~/.ssh/gpuo …</code>.
        </p>
      </details>
    </section>
  );
}

/**
 * The first-run checklist: a provider key, an SSH key, then prices and a launch. Shown on the fleet while a step
 * is missing and on its own page; each missing step links to where it is done.
 */
export function GetStarted({ api, always = false }: { api: Api; always?: boolean }) {
  const providers = usePoll(() => api.request<Page<ProviderKey>>('GET', '/v1/settings/providers'), 0, [api]);
  const ssh = usePoll(() => api.request<Page<SshKey>>('GET', '/v1/ssh-keys?limit=1'), 0, [api]);
  if (!providers.data || !ssh.data) return <ErrorNotice error={providers.error ?? ssh.error} />;
  const hasProvider = providers.data.data.some((k) => k.status !== 'invalid');
  const hasSsh = ssh.data.data.length > 0;
  if (hasProvider && hasSsh && !always) return null;
  const step = (done: boolean, text: string, to: string, action: string) => (
    <li class={done ? 'done' : 'todo'}>
      <span>{done ? '✓ ' : ''}</span>
      {text} {done ? <small>(done)</small> : <Link to={to}>{action}</Link>}
    </li>
  );
  return (
    <section class="card get-started" aria-labelledby="get-started-title">
      <h2 id="get-started-title">Get started</h2>
      <ol>
        {step(hasProvider, 'Connect a provider key (RunPod, Vast.ai or Lambda).', '/settings', 'Connect a key')}
        {step(hasSsh, 'Add an SSH key, so you can log in to your instances.', '/settings', 'Add an SSH key')}
        <li>
          Compare <Link to="/prices">prices</Link>, then <Link to="/launch">launch an instance</Link> or{' '}
          <Link to="/jobs/new">run a job</Link>.
        </li>
      </ol>
    </section>
  );
}
