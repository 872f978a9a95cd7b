/** Settings › API keys: the account's keys with scopes, caps and spend; create one (shown once) and revoke. */
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes, type Scope } from '../scopes';
import { Empty, ErrorNotice, useAction, usePoll } from '../ui';
import { dollars, localTime } from '../format';
import type { ApiKeyRecord } from '../types';

const ALL_SCOPES: Scope[] = [
  'read',
  'compute:write',
  'schedules:write',
  'alerts:write',
  'webhooks:write',
  'billing:write',
  'settings:write',
  'keys:admin',
];

export function ApiKeysSection({ api }: { api: Api }) {
  const scopes = useScopes();
  const keys = usePoll(() => api.request<{ data: ApiKeyRecord[] }>('GET', '/v1/api-keys'), 0, [api]);
  const [created, setCreated] = useState<string | null>(null);
  const [form, setForm] = useState({
    name: '',
    scopes: new Set<Scope>(['read']),
    cap: '',
    period: 'day',
    expires: '',
  });
  const creating = useAction();
  const revoking = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    void creating.run(async () => {
      const body: Record<string, unknown> = { name: form.name.trim(), scopes: [...form.scopes] };
      if (form.cap) body.spend_limit = { amount: Number(form.cap), period: form.period };
      // A date input gives a day: the key lasts through the end of that day, UTC.
      if (form.expires) body.expires_at = new Date(`${form.expires}T23:59:59Z`).toISOString();
      const res = await api.request<{ api_key: string }>('POST', '/v1/api-keys', body);
      setCreated(res.api_key);
      setForm({ ...form, name: '', cap: '', expires: '' });
      await keys.reload();
    });
  };
  const revoke = (id: string) =>
    void revoking.run(async () => {
      await api.request('DELETE', `/v1/api-keys/${encodeURIComponent(id)}`);
      await keys.reload();
    });
  const toggle = (s: Scope) => {
    const next = new Set(form.scopes);
    if (next.has(s)) next.delete(s);
    else next.add(s);
    setForm({ ...form, scopes: next });
  };
  return (
    <>
      <h2>API keys</h2>
      <ErrorNotice error={keys.error} />
      {keys.data && keys.data.data.length === 0 ? <Empty>No API keys.</Empty> : null}
      {keys.data && keys.data.data.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Spend cap</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="sr-only">Revoke</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.key_prefix}…</code>
                  </td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>
                    {k.spend_limit
                      ? `${dollars(k.spend_in_period)} of ${dollars(k.spend_limit.amount)} a ${k.spend_limit.period}`
                      : 'none'}
                  </td>
                  <td>{localTime(k.last_used_at)}</td>
                  <td>{k.expires_at ? localTime(k.expires_at) : 'never'}</td>
                  <td>
                    <button
                      type="button"
                      class="link"
                      disabled={!scopes.allowed('keys:admin')}
                      title={scopes.why('keys:admin')}
                      onClick={() => revoke(k.id)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <ErrorNotice error={revoking.error} />
      <form class="inline-form" onSubmit={create} aria-label="New API key">
        <div>
          <label for="key-name">Name</label>
          <input
            id="key-name"
            required
            value={form.name}
            onInput={(e) => setForm({ ...form, name: (e.target as HTMLInputElement).value })}
          />
        </div>
        <fieldset class="scopes">
          <legend>Scopes</legend>
          {ALL_SCOPES.map((s) => (
            <label key={s} class="inline">
              <input type="checkbox" checked={form.scopes.has(s)} onChange={() => toggle(s)} /> {s}{' '}
            </label>
          ))}
        </fieldset>
        <div>
          <label for="key-cap">Spend cap ($, optional)</label>
          <input
            id="key-cap"
            type="number"
            min="0.01"
            step="0.01"
            value={form.cap}
            onInput={(e) => setForm({ ...form, cap: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div>
          <label for="key-period">per</label>
          <select
            id="key-period"
            value={form.period}
            onChange={(e) => setForm({ ...form, period: (e.target as HTMLSelectElement).value })}
          >
            <option value="day">day</option>
            <option value="month">month</option>
          </select>
        </div>
        <div>
          <label for="key-expires">Expires (optional)</label>
          <input
            id="key-expires"
            type="date"
            value={form.expires}
            onInput={(e) => setForm({ ...form, expires: (e.target as HTMLInputElement).value })}
          />
        </div>
        <button
          type="submit"
          disabled={creating.busy || !scopes.allowed('keys:admin')}
          title={scopes.why('keys:admin')}
        >
          Create key
        </button>
      </form>
      <ErrorNotice error={creating.error} />
      {created ? (
        <p role="status" class="warning" data-testid="new-api-key">
          New key (shown once, copy it now): <code class="wrap">{created}</code>
        </p>
      ) : null}
    </>
  );
}
