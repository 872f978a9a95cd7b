/**
 * Spend: the balance, this month's spend by day, the transactions with the type filter, and a top-up through
 * Stripe Checkout.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Api } from '../api';
import { useScopes } from '../scopes';
import type { SpendSummary, Transaction, Transactions } from '../types';
import { Empty, ErrorNotice, useAction, usePoll } from '../ui';
import { dollars, localTime } from '../format';

const TYPES = ['instance_charge', 'credit_topup', 'credit_grant', 'credit_refund', 'credit_dispute'];

function TopUp({ api }: { api: Api }) {
  const scopes = useScopes();
  const [amount, setAmount] = useState('25');
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(
      async () => {
        const { checkout_url } = await api.topUp(Number(amount));
        location.assign(checkout_url);
      },
      { leavesPage: true },
    );
  };
  return (
    <form class="topup" onSubmit={submit}>
      <h2>Add credit</h2>
      <label for="topup-amount">Amount (USD, at least $5)</label>
      <input
        id="topup-amount"
        type="number"
        min="5"
        step="0.01"
        inputMode="decimal"
        required
        value={amount}
        onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled={busy || !scopes.allowed('billing:write')} title={scopes.why('billing:write')}>
        {busy ? 'Opening checkout…' : 'Pay with Stripe'}
      </button>
      <ErrorNotice error={error} />
    </form>
  );
}

/** This month's instance charges, oldest first (at most 1,000: enough for a chart). */
async function monthCharges(api: Api, monthStart: number): Promise<Transaction[]> {
  const out: Transaction[] = [];
  let cursor: string | null | undefined;
  for (let page = 0; page < 5; page++) {
    const res = await api.request<Transactions>(
      'GET',
      `/v1/billing/transactions?type=instance_charge&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    const inMonth = res.data.filter((t) => Date.parse(t.created_at) >= monthStart);
    out.push(...inMonth);
    if (!res.has_more || inMonth.length < res.data.length || !res.next_cursor) break;
    cursor = res.next_cursor;
  }
  return out.reverse();
}

const DAY_MS = 86_400_000;

/** One UTC day of the month so far: what was charged that day and the month's total at its end. */
export interface SpendDay {
  day: number;
  spent: number;
  toDate: number;
}

/**
 * A point per UTC day from the month's first to today: the day's instance charges, zero on a day without any,
 * and the running total. Days are points, not a line through time, so nothing is drawn between two charges that
 * did not happen.
 */
export function dailySpend(charges: readonly Transaction[], monthStart: number, today: number): SpendDay[] {
  const days: SpendDay[] = [];
  for (let d = monthStart; d <= today; d += DAY_MS) days.push({ day: d, spent: 0, toDate: 0 });
  for (const t of charges) {
    const i = Math.floor((Date.parse(t.created_at) - monthStart) / DAY_MS);
    if (days[i]) days[i]!.spent -= t.amount;
  }
  let total = 0;
  for (const d of days) {
    // Charges are micro-dollars: rounding each sum to them keeps float noise out of the figures shown.
    d.spent = Math.round(d.spent * 1e6) / 1e6;
    total = Math.round((total + d.spent) * 1e6) / 1e6;
    d.toDate = total;
  }
  return days;
}

const dayLabel = (ms: number) =>
  new Date(ms).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** This month by UTC day: the spend of each day (bars) and the month to date (a stepped line), both from zero. */
function SpendChart({ api, summary }: { api: Api; summary: SpendSummary }) {
  const ref = useRef<HTMLDivElement>(null);
  const [charges, setCharges] = useState<Transaction[] | null>(null);
  const now = new Date();
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  useEffect(() => {
    monthCharges(api, monthStart).then(setCharges, () => setCharges([]));
  }, [api, summary.month_to_date_spend]);
  const days = charges ? dailySpend(charges, monthStart, today) : null;
  useEffect(() => {
    const el = ref.current;
    if (!el || !days) return undefined;
    const xs = days.map((d) => d.day / 1000);
    const bars = uPlot.paths.bars!({ size: [0.6, 40], align: 0 });
    const steps = uPlot.paths.stepped!({ align: 1 });
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: 240,
        title: 'Spend this month, by UTC day',
        scales: {
          x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
          y: { range: (_u, _min, max) => [0, Math.max(max, 0.01) * 1.1] },
        },
        axes: [
          {},
          {
            size: 72,
            // Cents apart or less (a day of a few minutes' use): four decimals, so the ticks differ.
            values: (_u, ticks) => ticks.map((t) => dollars(t, (ticks[1] ?? 1) - (ticks[0] ?? 0) < 0.01 ? 4 : 2)),
          },
        ],
        series: [
          {},
          {
            label: 'Spent that day',
            stroke: '#1d4ed8',
            fill: 'rgba(29, 78, 216, 0.35)',
            width: 1,
            paths: bars,
            points: { show: false },
          },
          { label: 'Month to date', stroke: '#047857', width: 2, paths: steps, points: { show: true, size: 6 } },
        ],
      },
      [xs, days.map((d) => d.spent), days.map((d) => d.toDate)] as uPlot.AlignedData,
      el,
    );
    return () => plot.destroy();
  }, [charges]);
  return (
    <>
      <div
        ref={ref}
        class="chart"
        role="img"
        aria-label={
          `Spend this month by day: ${dollars(summary.month_to_date_spend)} so far, ` +
          `${dollars(summary.forecast_month_spend)} forecast for the month`
        }
      />
      <p class="hint">Forecast for the month at the current burn: {dollars(summary.forecast_month_spend)}.</p>
      {days ? (
        <details>
          <summary>The chart's numbers</summary>
          <table data-testid="spend-days">
            <caption class="sr-only">Spend per UTC day this month</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" class="num">
                  Spent that day
                </th>
                <th scope="col" class="num">
                  Month to date
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.day} data-day={new Date(d.day).toISOString().slice(0, 10)}>
                  <th scope="row">{dayLabel(d.day)}</th>
                  <td class="num">{dollars(d.spent, 4)}</td>
                  <td class="num">{dollars(d.toDate, 4)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ) : null}
    </>
  );
}

function SummaryCards({ summary }: { summary: SpendSummary }) {
  const runway =
    summary.runway_hours === null
      ? 'no burn'
      : summary.runway_hours >= 48
        ? `${(summary.runway_hours / 24).toFixed(1)} days`
        : `${summary.runway_hours.toFixed(1)} h`;
  return (
    <dl class="cards">
      <div>
        <dt>Balance</dt>
        <dd data-testid="balance">{dollars(summary.balance)}</dd>
      </div>
      <div>
        <dt>Available</dt>
        <dd title="balance minus usage not charged yet">{dollars(summary.available)}</dd>
      </div>
      <div>
        <dt>Burn</dt>
        <dd>{dollars(summary.burn_rate_per_hour)}/h</dd>
      </div>
      <div>
        <dt>Runway</dt>
        <dd>{runway}</dd>
      </div>
      <div>
        <dt>Runs out</dt>
        <dd>{summary.depletes_at ? localTime(summary.depletes_at) : 'never at this burn'}</dd>
      </div>
      <div>
        <dt>Month to date</dt>
        <dd>{dollars(summary.month_to_date_spend)}</dd>
      </div>
      <div>
        <dt>Forecast</dt>
        <dd>{dollars(summary.forecast_month_spend)}</dd>
      </div>
    </dl>
  );
}

export function SpendPage({ api, onAuthError }: { api: Api; onAuthError: (e: unknown) => void }) {
  const [type, setType] = useState('');
  const summary = usePoll(
    () =>
      api.request<SpendSummary>('GET', '/v1/billing/summary').catch((e) => {
        onAuthError(e);
        throw e;
      }),
    15_000,
    [api],
  );
  const txns = usePoll(() => api.transactions(type || undefined), 15_000, [api, type]);
  return (
    <section aria-labelledby="spend-title">
      <div class="page-head">
        <h1 id="spend-title">Spend</h1>
      </div>
      <ErrorNotice error={summary.error} />
      {summary.data ? <SummaryCards summary={summary.data} /> : <p>Loading…</p>}
      {summary.data ? <SpendChart api={api} summary={summary.data} /> : null}
      <TopUp api={api} />
      <h2>Transactions</h2>
      <label for="txn-type">Type</label>{' '}
      <select id="txn-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
        <option value="">All</option>
        {TYPES.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
      <ErrorNotice error={txns.error} />
      {txns.data && txns.data.data.length === 0 ? (
        <Empty>No transactions{type ? ` of type ${type}` : ''} yet.</Empty>
      ) : null}
      {txns.data && txns.data.data.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Transactions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Type</th>
                <th scope="col">Description</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col" class="num">
                  Balance after
                </th>
              </tr>
            </thead>
            <tbody>
              {txns.data.data.map((t) => (
                <tr key={t.id}>
                  <td>{localTime(t.created_at)}</td>
                  <td>{t.type}</td>
                  <td>{t.description}</td>
                  <td class={`num ${t.amount < 0 ? 'neg' : 'pos'}`}>
                    {dollars(t.amount, t.type === 'instance_charge' ? 4 : 2)}
                  </td>
                  <td class="num">{dollars(t.balance_after, 4)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
