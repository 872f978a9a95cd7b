/** Alerts (create with a threshold, delete) and the events timeline. */
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { AccountEvent, Alert, Page } from '../types';
import { Empty, ErrorNotice, usePoll } from '../ui';
import { dollars, localTime, perHour } from '../format';

export function AlertsPage({ api }: { api: Api }) {
  const scopes = useScopes();
  const alerts = usePoll(() => api.request<Page<Alert>>('GET', '/v1/alerts?limit=200'), 30_000, [api]);
  const [error, setError] = useState<unknown>(null);
  const [form, setForm] = useState({ type: 'budget_limit', value: '', gpu: '', action: 'notify' });
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const body =
      form.type === 'price_drop'
        ? { type: 'price_drop', gpu_type: form.gpu, threshold_price: Number(form.value) }
        : { type: 'budget_limit', threshold_dollars: Number(form.value), action: form.action };
    try {
      await api.request('POST', '/v1/alerts', body);
      setForm({ ...form, value: '' });
      await alerts.reload();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (id: string) => {
    try {
      await api.request('DELETE', `/v1/alerts/${encodeURIComponent(id)}`);
      await alerts.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="alerts-title">
      <h1 id="alerts-title">Alerts</h1>
      <ErrorNotice error={alerts.error} />
      <form class="inline-form" onSubmit={create}>
        <div>
          <label for="alert-type">Type</label>
          <select
            id="alert-type"
            value={form.type}
            onChange={(e) => setForm({ ...form, type: (e.target as HTMLSelectElement).value })}
          >
            <option value="budget_limit">Budget (month to date)</option>
            <option value="price_drop">Price drop</option>
          </select>
        </div>
        {form.type === 'price_drop' ? (
          <div>
            <label for="alert-gpu">GPU</label>
            <input
              id="alert-gpu"
              required
              placeholder="h100-80gb-sxm"
              value={form.gpu}
              onInput={(e) => setForm({ ...form, gpu: (e.target as HTMLInputElement).value })}
            />
          </div>
        ) : (
          <div>
            <label for="alert-action">When it triggers</label>
            <select
              id="alert-action"
              value={form.action}
              onChange={(e) => setForm({ ...form, action: (e.target as HTMLSelectElement).value })}
            >
              <option value="notify">Notify</option>
              <option value="stop_instances">Stop my instances</option>
            </select>
          </div>
        )}
        <div>
          <label for="alert-value">
            {form.type === 'price_drop' ? 'At or below ($/GPU-hour)' : 'Spend reaches ($)'}
          </label>
          <input
            id="alert-value"
            type="number"
            min="0.01"
            step="0.01"
            required
            value={form.value}
            onInput={(e) => setForm({ ...form, value: (e.target as HTMLInputElement).value })}
          />
        </div>
        <button type="submit" disabled={!scopes.allowed('alerts:write')} title={scopes.why('alerts:write')}>
          Create alert
        </button>
      </form>
      <ErrorNotice error={error} />
      {alerts.data && alerts.data.data.length === 0 ? (
        <Empty>
          No alerts. A budget alert tells you (or stops your instances) when this month's spend reaches an amount.
        </Empty>
      ) : null}
      {alerts.data && alerts.data.data.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Alerts</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Threshold</th>
                <th scope="col">Now</th>
                <th scope="col">Action</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Delete</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {alerts.data.data.map((a) => (
                <tr key={a.id}>
                  <td>{a.type === 'price_drop' ? `Price of ${a.gpu_type ?? ''}` : 'Month-to-date spend'}</td>
                  <td>{a.type === 'price_drop' ? perHour(a.threshold_price) : dollars(a.threshold_dollars)}</td>
                  <td>{a.type === 'price_drop' ? perHour(a.current_value) : dollars(a.current_value)}</td>
                  <td>{a.action === 'stop_instances' ? 'stop instances' : 'notify'}</td>
                  <td>
                    {a.status}
                    {a.triggered_at ? ` ${localTime(a.triggered_at)}` : ''}
                  </td>
                  <td>
                    <button
                      type="button"
                      class="link"
                      disabled={!scopes.allowed('alerts:write')}
                      title={scopes.why('alerts:write')}
                      onClick={() => void remove(a.id)}
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
    </section>
  );
}

export function EventsPage({ api }: { api: Api }) {
  const [type, setType] = useState('');
  const events = usePoll(
    () =>
      api.request<Page<AccountEvent>>('GET', `/v1/events?limit=100${type ? `&type=${encodeURIComponent(type)}` : ''}`),
    10_000,
    [api, type],
  );
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <label for="event-type">Type</label>
      <input
        id="event-type"
        placeholder="e.g. instance.started"
        value={type}
        onChange={(e) => setType((e.target as HTMLInputElement).value.trim())}
      />
      <ErrorNotice error={events.error} />
      {events.data && events.data.data.length === 0 ? (
        <Empty>No events yet: launches, alerts, runs and payments appear here as they happen.</Empty>
      ) : null}
      <ol class="timeline">
        {events.data?.data.map((e) => (
          <li key={e.id}>
            <time dateTime={e.created_at}>{localTime(e.created_at)}</time> <strong>{e.type}</strong>{' '}
            <code class="wrap">{JSON.stringify(e.data)}</code>
          </li>
        ))}
      </ol>
    </section>
  );
}
