/**
 * Webhooks: register an endpoint (its signing secret shown once), edit its URL, events and active flag, delete
 * it; send a test event; the delivery log with every attempt, and retry.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { Delivery, Page, Webhook } from '../types';
import { Confirm, Empty, ErrorNotice, useAction, usePoll } from '../ui';
import { localTime } from '../format';

/** The event kinds an endpoint may subscribe to (GET /v1/openapi.json, WebhookRecord.events). */
export const EVENT_KINDS: Webhook['events'] = [
  'instance.started',
  'instance.stopped',
  'instance.terminated',
  'instance.failed',
  'instance.idle_stopped',
  'spot.preempted',
  'alert.triggered',
  'schedule.run.started',
  'schedule.run.completed',
  'schedule.run.failed',
  'job.started',
  'job.attempt_ended',
  'job.retrying',
  'job.succeeded',
  'job.failed',
  'job.cancelled',
  'billing.credit_added',
  'billing.credit_reversed',
  'billing.balance_low',
  'billing.balance_depleted',
  'webhook.test',
  'api_key.created',
  'api_key.revoked',
];
type EventKind = Webhook['events'][number];

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

/** The endpoint form: a new endpoint, or the fields of one being edited. */
function WebhookForm({
  initial,
  busy,
  canWrite,
  why,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial?: Webhook;
  busy: boolean;
  canWrite: boolean;
  why?: string;
  submitLabel: string;
  onSubmit: (body: { url: string; events: EventKind[]; active: boolean }) => void;
  onCancel?: () => void;
}) {
  const [url, setUrl] = useState(initial?.url ?? '');
  const [events, setEvents] = useState<Set<EventKind>>(new Set(initial?.events ?? ['instance.started']));
  const [active, setActive] = useState(initial?.active ?? true);
  const id = initial ? `edit-${initial.id}` : 'new-webhook';
  const toggle = (k: EventKind) => {
    const next = new Set(events);
    if (next.has(k)) next.delete(k);
    else next.add(k);
    setEvents(next);
  };
  return (
    <form
      class="stack-form"
      aria-label={initial ? `Edit ${initial.url}` : 'Register a webhook endpoint'}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit({ url: url.trim(), events: EVENT_KINDS.filter((k) => events.has(k)), active });
      }}
    >
      <div>
        <label for={`${id}-url`}>Endpoint URL</label>
        <input
          id={`${id}-url`}
          type="url"
          required
          value={url}
          placeholder="https://example.com/hooks/gpuo"
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
      </div>
      <fieldset class="scopes">
        <legend>Events</legend>
        {EVENT_KINDS.map((k) => (
          <label key={k} class="inline">
            <input type="checkbox" checked={events.has(k)} onChange={() => toggle(k)} /> {k}{' '}
          </label>
        ))}
      </fieldset>
      {initial ? (
        <label for={`${id}-active`}>
          <input
            id={`${id}-active`}
            type="checkbox"
            checked={active}
            onChange={(e) => setActive((e.target as HTMLInputElement).checked)}
          />{' '}
          Active (deliveries are sent)
        </label>
      ) : null}
      <div class="actions">
        <button type="submit" disabled={busy || !canWrite} title={why}>
          {submitLabel}
        </button>
        {onCancel ? (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

function WebhookCard({ api, hook, reload }: { api: Api; hook: Webhook; reload: () => Promise<void> }) {
  const scopes = useScopes();
  const canWrite = scopes.allowed('webhooks:write');
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();
  const test = () =>
    void action.run(async () => {
      await api.request('POST', `/v1/webhooks/${encodeURIComponent(hook.id)}/test`);
      setNotice('Test event sent; it appears in the delivery log.');
      setOpen(true);
    });
  const save = (body: { url: string; events: EventKind[]; active: boolean }) =>
    void action.run(async () => {
      await api.request('PUT', `/v1/webhooks/${encodeURIComponent(hook.id)}`, body);
      setEditing(false);
      setNotice('Saved.');
      await reload();
    });
  const remove = () => {
    setConfirming(false);
    void action.run(async () => {
      await api.request('DELETE', `/v1/webhooks/${encodeURIComponent(hook.id)}`);
      await reload();
    });
  };
  return (
    <article class="card" data-webhook-id={hook.id}>
      <h2>
        <code class="wrap">{hook.url}</code> <small class="tag">{hook.active ? 'active' : 'inactive'}</small>
      </h2>
      <p>{hook.events.join(', ')}</p>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={action.busy || !canWrite}
          title={scopes.why('webhooks:write')}
          onClick={test}
        >
          Send test event
        </button>
        <button type="button" class="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide deliveries' : 'Delivery log'}
        </button>
        <button
          type="button"
          class="secondary"
          aria-expanded={editing}
          disabled={!canWrite}
          title={scopes.why('webhooks:write')}
          onClick={() => setEditing(!editing)}
        >
          Edit
        </button>
        <button
          type="button"
          class="danger"
          disabled={action.busy || !canWrite}
          title={scopes.why('webhooks:write')}
          onClick={() => setConfirming(true)}
        >
          Delete
        </button>
      </div>
      <ErrorNotice error={action.error} />
      {notice ? <p role="status">{notice}</p> : null}
      {editing ? (
        <WebhookForm
          initial={hook}
          busy={action.busy}
          canWrite={canWrite}
          why={scopes.why('webhooks:write')}
          submitLabel="Save"
          onSubmit={save}
          onCancel={() => setEditing(false)}
        />
      ) : null}
      {open ? <Deliveries api={api} webhook={hook} /> : null}
      {confirming ? (
        <Confirm
          title="Delete this endpoint?"
          confirmLabel="Delete"
          onConfirm={remove}
          onCancel={() => setConfirming(false)}
        >
          <p>{hook.url}: pending retries stop and its delivery log goes with it.</p>
        </Confirm>
      ) : null}
    </article>
  );
}

export function WebhooksPage({ api }: { api: Api }) {
  const scopes = useScopes();
  const hooks = usePoll(() => api.request<Page<Webhook>>('GET', '/v1/webhooks?limit=200'), 30_000, [api]);
  const create = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);
  const register = (body: { url: string; events: EventKind[] }) =>
    void create.run(async () => {
      const made = await api.request<{ secret: string }>('POST', '/v1/webhooks', {
        url: body.url,
        events: body.events,
      });
      setSecret(made.secret);
      setFormKey((k) => k + 1);
      await hooks.reload();
    });
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <ErrorNotice error={hooks.error} />
      {hooks.data && hooks.data.data.length === 0 ? (
        <Empty>No webhook endpoints yet: register one below to receive signed events.</Empty>
      ) : null}
      {hooks.data?.data.map((w) => (
        <WebhookCard key={w.id} api={api} hook={w} reload={hooks.reload} />
      ))}
      <h2>Register an endpoint</h2>
      <WebhookForm
        key={formKey}
        busy={create.busy}
        canWrite={scopes.allowed('webhooks:write')}
        why={scopes.why('webhooks:write')}
        submitLabel="Register endpoint"
        onSubmit={register}
      />
      <ErrorNotice error={create.error} />
      {secret ? (
        <p role="status" class="warning" data-testid="webhook-secret">
          Signing secret (shown once, keep it to verify deliveries): <code class="wrap">{secret}</code>
        </p>
      ) : null}
    </section>
  );
}
