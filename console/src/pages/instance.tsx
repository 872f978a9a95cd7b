/**
 * One instance (GET /v1/compute/{id}): status, price, cost to date (what the ledger charged plus what has run up
 * since), SSH details, its timeline and charges, stop/start/terminate, and its log (live while it runs, where the
 * API serves logs). Also the ended instances, browsable with what each cost (GET /v1/compute?status=ended).
 */
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { InstanceDetail, ListedInstance } from '../types';
import { Confirm, Empty, ErrorNotice, Link, useAction, usePoll } from '../ui';
import { PROVIDER_NAMES, dollars, localTime, perHour } from '../format';
import { CopyButton, sshCommand } from './fleet';
import { LogView } from './logs';

const REFRESH_MS = 5_000;
const ENDED = new Set(['terminated', 'failed']);

export function InstancePage({ api, id }: { api: Api; id: string }) {
  const scopes = useScopes();
  const record = usePoll(
    () => api.request<InstanceDetail>('GET', `/v1/compute/${encodeURIComponent(id)}`),
    REFRESH_MS,
    [api, id],
  );
  const [pending, setPending] = useState<'stop' | 'start' | 'terminate' | null>(null);
  const action = useAction();
  const i = record.data;
  if (!i)
    return (
      <section aria-labelledby="instance-title">
        <h1 id="instance-title">Instance {id}</h1>
        <ErrorNotice error={record.error} />
        {record.error ? null : <p>Loading…</p>}
      </section>
    );
  const ssh = sshCommand(i);
  const ended = ENDED.has(i.status);
  const act = (what: 'stop' | 'start' | 'terminate') => {
    setPending(null);
    void action.run(async () => {
      await api.request('POST', `/v1/compute/${encodeURIComponent(i.id)}/${what}`);
      await record.reload();
    });
  };
  const button = (what: 'stop' | 'start' | 'terminate', label: string, cls = 'secondary') => (
    <button
      type="button"
      class={cls}
      disabled={action.busy || !scopes.allowed('compute:write')}
      title={scopes.why('compute:write')}
      onClick={() => (what === 'start' ? act('start') : setPending(what))}
    >
      {label}
    </button>
  );
  return (
    <section aria-labelledby="instance-title">
      <p>
        <Link to="/fleet">Fleet</Link> › <Link to="/instances">Ended instances</Link>
      </p>
      <h1 id="instance-title">
        {i.name ?? i.id} <span class={`status status-${i.status}`}>{i.status}</span>
      </h1>
      <ErrorNotice error={record.error} />
      <dl class="cards">
        <div>
          <dt>Cost to date</dt>
          <dd data-testid="cost-to-date">{dollars(i.cost.to_date, 4)}</dd>
        </div>
        <div>
          <dt>Charged</dt>
          <dd title="what the ledger has charged">{dollars(i.cost.posted, 4)}</dd>
        </div>
        <div>
          <dt>Not charged yet</dt>
          <dd title="run up since the last charge; charged at the next meter interval or at the end">
            {dollars(i.cost.accrued, 4)}
          </dd>
        </div>
        <div>
          <dt>Price</dt>
          <dd>{perHour(i.price_per_hour)}</dd>
        </div>
        <div>
          <dt>Where</dt>
          <dd>
            {PROVIDER_NAMES[i.provider]} · {i.gpu_count > 1 ? `${i.gpu_count}× ` : ''}
            {i.gpu_type ?? '—'}
            {i.spot ? ' · spot' : ''}
            {i.region ? ` · ${i.region}` : ''}
          </dd>
        </div>
      </dl>
      {i.end_reason ? <p>Ended because: {i.end_reason}</p> : null}
      {i.warnings?.map((w, n) => (
        <p class="warning" role="status" key={n}>
          {w}
        </p>
      ))}
      {i.provider_view ? (
        <p class="warning" role="status">
          {PROVIDER_NAMES[i.provider]} still lists it ({i.provider_view.provider_status ?? i.provider_view.status}, as
          of {localTime(i.provider_view.observed_at)}); the service keeps ending it.
        </p>
      ) : null}
      <h2>Connect</h2>
      {ssh && !ended ? (
        <p>
          <code>{ssh}</code> <CopyButton text={ssh} />
          <br />
          <small>With the account's default SSH key{i.public_ip ? `; public IP ${i.public_ip}` : ''}.</small>
        </p>
      ) : (
        <p class="hint">{ended ? 'The instance has ended.' : 'SSH details appear once the provider reports them.'}</p>
      )}
      {i.managed && !ended ? (
        <div class="actions">
          {i.provider === 'runpod' && i.status === 'running' ? button('stop', 'Stop') : null}
          {i.provider === 'runpod' && i.status === 'stopped' ? button('start', 'Start') : null}
          {button('terminate', 'Terminate', 'danger')}
        </div>
      ) : null}
      <ErrorNotice error={action.error} />
      <h2>Timeline</h2>
      <ol class="timeline" aria-label="Timeline">
        {i.timeline.map((e, n) => (
          <li key={n}>
            <time dateTime={e.at}>{localTime(e.at)}</time> <strong>{e.event}</strong>
            {e.reason ? ` (${e.reason})` : ''}
          </li>
        ))}
      </ol>
      <Charges charges={i.charges} />
      <h2>Log</h2>
      <LogView
        api={api}
        route="/v1/compute/{provider_instance_id}/logs"
        path={`/v1/compute/${encodeURIComponent(i.id)}/logs`}
        live={i.status === 'running'}
        label={`Log of ${i.name ?? i.id}`}
      />
      {pending ? (
        <Confirm
          title={pending === 'stop' ? 'Stop this instance?' : 'Terminate this instance?'}
          confirmLabel={pending === 'stop' ? 'Stop' : 'Terminate'}
          onConfirm={() => act(pending)}
          onCancel={() => setPending(null)}
        >
          <p>
            {i.name ?? i.id} at {PROVIDER_NAMES[i.provider]}.{' '}
            {pending === 'terminate'
              ? 'Its disk is deleted; this cannot be undone.'
              : 'Billing for compute stops; the disk is kept.'}
          </p>
        </Confirm>
      ) : null}
    </section>
  );
}

/** The instance's latest charges, newest first, and how many there are in all. */
function Charges({ charges }: { charges: InstanceDetail['charges'] }) {
  return (
    <>
      <h2>Charges</h2>
      {charges.count === 0 ? (
        <Empty>No charges yet: the first comes at the first meter interval after it started running.</Empty>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Charges of this instance, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Description</th>
                <th scope="col" class="num">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {charges.latest.map((t) => (
                <tr key={t.id}>
                  <td>{localTime(t.created_at)}</td>
                  <td>{t.description}</td>
                  <td class="num neg">{dollars(t.amount, 4)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {charges.count > charges.latest.length ? (
        <p class="hint">
          {charges.count} charges in all: <Link to="/spend">the transactions</Link> list every one.
        </p>
      ) : null}
    </>
  );
}

interface EndedPage {
  data: ListedInstance[];
  has_more?: boolean;
  next_cursor?: string | null;
}

/** The ended instances, newest first, a page at a time, each with why it ended and what it cost. */
export function EndedInstancesPage({ api }: { api: Api }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const page = usePoll(
    () =>
      api.request<EndedPage>(
        'GET',
        `/v1/compute?status=ended&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ),
    0,
    [api, cursor],
  );
  return (
    <section aria-labelledby="ended-title">
      <p>
        <Link to="/fleet">Fleet</Link>
      </p>
      <h1 id="ended-title">Ended instances</h1>
      <ErrorNotice error={page.error} />
      {page.data && page.data.data.length === 0 ? <Empty>No instance has ended yet.</Empty> : null}
      {page.data && page.data.data.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Ended instances, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Provider</th>
                <th scope="col">GPU</th>
                <th scope="col">Ended</th>
                <th scope="col">Why</th>
                <th scope="col">Price</th>
                <th scope="col" class="num">
                  Cost
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((i) => (
                <tr key={`${i.provider}:${i.id}`} data-instance-id={i.id}>
                  <td>
                    <Link to={`/instances/${encodeURIComponent(i.id)}`}>{i.name ?? i.id}</Link>
                  </td>
                  <td>{PROVIDER_NAMES[i.provider]}</td>
                  <td>
                    {i.gpu_count > 1 ? `${i.gpu_count}× ` : ''}
                    {i.gpu_type ?? '—'}
                  </td>
                  <td>{localTime(i.ended_at)}</td>
                  <td>{i.end_kind ?? i.status}</td>
                  <td>{perHour(i.price_per_hour)}</td>
                  <td class="num">{dollars(i.total_cost, 4)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <div class="actions">
        {cursors.length > 0 ? (
          <button type="button" class="secondary" onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer
          </button>
        ) : null}
        {page.data?.has_more && page.data.next_cursor ? (
          <button type="button" class="secondary" onClick={() => setCursors([...cursors, page.data!.next_cursor!])}>
            Older
          </button>
        ) : null}
      </div>
    </section>
  );
}
