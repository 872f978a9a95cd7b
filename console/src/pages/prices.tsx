/** Prices: the cross-provider comparison table and, per GPU, the price history chart (24h / 7d / 30d). */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Api } from '../api';
import type { PriceHistory, ProviderId } from '../types';
import { Empty, ErrorNotice, usePoll } from '../ui';
import { PROVIDER_NAMES, localTime, perHour } from '../format';

const PROVIDERS: ProviderId[] = ['runpod', 'vastai', 'lambda'];
const COLORS: Record<ProviderId, string> = { runpod: '#6d28d9', vastai: '#0369a1', lambda: '#b45309' };
type Period = '24h' | '7d' | '30d';

/** One x axis (seconds) across providers; a provider without a point at a moment gets null there. */
export function historySeries(history: PriceHistory): { providers: ProviderId[]; data: uPlot.AlignedData } {
  const providers = PROVIDERS.filter((p) => history.data.some((d) => d.provider === p));
  const xs = [...new Set(history.data.map((d) => Math.floor(Date.parse(d.timestamp) / 1000)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = providers.map(() => xs.map((): number | null => null));
  for (const d of history.data) {
    const p = providers.indexOf(d.provider);
    const i = index.get(Math.floor(Date.parse(d.timestamp) / 1000));
    if (p >= 0 && i !== undefined) ys[p]![i] = d.min_price_per_hour;
  }
  return { providers, data: [xs, ...ys] as uPlot.AlignedData };
}

function HistoryChart({ history, gpu }: { history: PriceHistory; gpu: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const { providers, data } = historySeries(history);
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: 280,
        title: `${gpu}: lowest available price per GPU-hour`,
        scales: { x: { time: true } },
        axes: [{}, { label: '$/h', values: (_u, ticks) => ticks.map((t) => `$${t.toFixed(2)}`) }],
        series: [
          {},
          ...providers.map((p) => ({
            label: PROVIDER_NAMES[p],
            stroke: COLORS[p],
            width: 2,
            spanGaps: true,
            points: { show: true },
          })),
        ],
      },
      data,
      el,
    );
    el.dataset.points = String(history.data.length);
    return () => plot.destroy();
  }, [history, gpu]);
  return (
    <div ref={ref} class="chart" role="img" aria-label={`Price history of ${gpu}, ${history.data.length} points`} />
  );
}

export function PricesPage({ api }: { api: Api }) {
  const pricing = usePoll(() => api.pricing(), 60_000, [api]);
  const [gpu, setGpu] = useState<string | null>(null);
  const [period, setPeriod] = useState<Period>('24h');
  const [history, setHistory] = useState<PriceHistory | null>(null);
  const [historyError, setHistoryError] = useState<unknown>(null);
  const selected = gpu ?? pricing.data?.gpu_types[0]?.gpu_type ?? null;

  useEffect(() => {
    if (!selected) return;
    let live = true;
    setHistoryError(null);
    api.priceHistory(selected, period).then(
      (h) => live && setHistory(h),
      (e) => live && setHistoryError(e),
    );
    return () => {
      live = false;
    };
  }, [api, selected, period]);

  return (
    <section aria-labelledby="prices-title">
      <div class="page-head">
        <h1 id="prices-title">Prices</h1>
        <p class="as-of">{pricing.data ? `Prices as of ${localTime(pricing.data.last_updated)}` : 'Loading…'}</p>
      </div>
      <ErrorNotice error={pricing.error} />
      {pricing.data && pricing.data.gpu_types.length === 0 ? (
        <Empty>No prices yet: the first refresh has not run.</Empty>
      ) : null}
      {pricing.data && pricing.data.gpu_types.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Cheapest available offer per GPU and provider</caption>
            <thead>
              <tr>
                <th scope="col">GPU</th>
                {PROVIDERS.map((p) => (
                  <th scope="col" key={p}>
                    {PROVIDER_NAMES[p]}
                  </th>
                ))}
                <th scope="col">History</th>
              </tr>
            </thead>
            <tbody>
              {pricing.data.gpu_types.map((g) => (
                <tr key={g.gpu_type} aria-selected={g.gpu_type === selected}>
                  <th scope="row">{g.display_name}</th>
                  {PROVIDERS.map((p) => {
                    const offers = g.offers.filter((o) => o.provider === p && o.availability > 0);
                    const best = offers.reduce<number | null>(
                      (m, o) => (m === null || o.price_per_hour < m ? o.price_per_hour : m),
                      null,
                    );
                    return <td key={p}>{best === null ? '—' : perHour(best)}</td>;
                  })}
                  <td>
                    <button
                      type="button"
                      class="link"
                      aria-pressed={g.gpu_type === selected}
                      onClick={() => setGpu(g.gpu_type)}
                    >
                      Chart
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {selected ? (
        <div class="history">
          <div class="segmented" role="group" aria-label="Period">
            {(['24h', '7d', '30d'] as Period[]).map((p) => (
              <button type="button" key={p} aria-pressed={p === period} onClick={() => setPeriod(p)}>
                {p}
              </button>
            ))}
          </div>
          <ErrorNotice error={historyError} />
          {history && history.data.length === 0 ? (
            <Empty>No recorded prices for {selected} in this period yet.</Empty>
          ) : null}
          {history && history.data.length > 0 ? <HistoryChart history={history} gpu={selected} /> : null}
        </div>
      ) : null}
    </section>
  );
}
