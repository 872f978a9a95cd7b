/**
 * Prices: the cross-provider comparison table (on-demand and spot each labelled) and, per GPU, the price chart
 * (24h / 7d / 30d): on-demand history per provider and the spot price now, with a legend of every series' values.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Api } from '../api';
import type { PriceHistory, PricingSnapshot, ProviderId } from '../types';
import { Empty, ErrorNotice, Link, usePoll } from '../ui';
import { PROVIDER_NAMES, localTime, perHour } from '../format';

const PROVIDERS: ProviderId[] = ['runpod', 'vastai', 'lambda'];
const COLORS: Record<ProviderId, string> = { runpod: '#6d28d9', vastai: '#0369a1', lambda: '#b45309' };
/**
 * Each provider's line differs in more than colour: width and dash, so a line lying on another (two providers at
 * the same price) still shows both, and the legend under the chart gives every series' values.
 */
const STROKES: Record<ProviderId, { width: number; dash?: number[] }> = {
  runpod: { width: 5 },
  vastai: { width: 2, dash: [10, 5] },
  lambda: { width: 2, dash: [2, 4] },
};
type Period = '24h' | '7d' | '30d';

/** One series of the chart: what it is, its points on the shared x axis, and the figures the legend shows. */
export interface PriceSeries {
  label: string;
  provider: ProviderId;
  kind: 'on-demand' | 'spot';
  values: (number | null)[];
  latest: number | null;
  min: number | null;
  max: number | null;
}

/**
 * The chart's series: per provider its on-demand history (GET /v1/pricing/history is on-demand only), and per
 * provider selling spot its current spot price, one point at the snapshot's time: the spot price is known now,
 * not over the period, so no line is drawn for it.
 */
export function priceSeries(
  history: PriceHistory,
  spotNow: { provider: ProviderId; price: number }[],
  at: number,
): { xs: number[]; series: PriceSeries[] } {
  const stamps = history.data.map((d) => Math.floor(Date.parse(d.timestamp) / 1000));
  const xs = [...new Set(spotNow.length ? [...stamps, at] : stamps)].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const summary = (values: (number | null)[]) => {
    const known = values.filter((v): v is number => v !== null);
    return {
      latest: [...values].reverse().find((v) => v !== null) ?? null,
      min: known.length ? Math.min(...known) : null,
      max: known.length ? Math.max(...known) : null,
    };
  };
  const series: PriceSeries[] = [];
  for (const p of PROVIDERS) {
    const points = history.data.filter((d) => d.provider === p);
    if (!points.length) continue;
    const values = xs.map((): number | null => null);
    for (const d of points) values[index.get(Math.floor(Date.parse(d.timestamp) / 1000))!] = d.min_price_per_hour;
    series.push({
      label: `${PROVIDER_NAMES[p]} on-demand`,
      provider: p,
      kind: 'on-demand',
      values,
      ...summary(values),
    });
  }
  for (const s of spotNow) {
    const values = xs.map((): number | null => null);
    values[index.get(at)!] = s.price;
    series.push({
      label: `${PROVIDER_NAMES[s.provider]} spot (now)`,
      provider: s.provider,
      kind: 'spot',
      values,
      ...summary(values),
    });
  }
  return { xs, series };
}

/** The cheapest available offer of a provider for a GPU, on-demand or spot. */
function cheapest(offers: PricingSnapshot['gpu_types'][number]['offers'], p: ProviderId, spot: boolean): number | null {
  return offers
    .filter((o) => o.provider === p && o.spot === spot && o.availability > 0)
    .reduce<number | null>((m, o) => (m === null || o.price_per_hour < m ? o.price_per_hour : m), null);
}

function HistoryChart({
  history,
  gpu,
  snapshot,
}: {
  history: PriceHistory;
  gpu: PricingSnapshot['gpu_types'][number];
  snapshot: PricingSnapshot;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const spotNow = PROVIDERS.flatMap((p) => {
    const price = cheapest(gpu.offers, p, true);
    return price === null ? [] : [{ provider: p, price }];
  });
  const at = Math.floor(Date.parse(snapshot.last_updated) / 1000);
  const { xs, series } = priceSeries(history, spotNow, at);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: 280,
        title: `${gpu.display_name}: lowest available price per GPU-hour`,
        scales: { x: { time: true } },
        axes: [{}, { label: '$/h', values: (_u, ticks) => ticks.map((t) => `$${t.toFixed(2)}`) }],
        series: [
          {},
          ...series.map((s) =>
            s.kind === 'spot'
              ? {
                  label: s.label,
                  stroke: COLORS[s.provider],
                  width: 0,
                  paths: () => null,
                  points: { show: true, size: 12, fill: '#ffffff', stroke: COLORS[s.provider], width: 3 },
                }
              : {
                  label: s.label,
                  stroke: COLORS[s.provider],
                  ...STROKES[s.provider],
                  // A refresh that missed a provider leaves a gap: the line does not pretend to know the price then.
                  spanGaps: false,
                  points: { show: true, size: 6 },
                },
          ),
        ],
      },
      [xs, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    el.dataset.points = String(history.data.length);
    return () => plot.destroy();
  }, [history, gpu, snapshot]);
  return (
    <>
      <div
        ref={ref}
        class="chart"
        role="img"
        aria-label={`Price history of ${gpu.display_name}: ${series.map((s) => s.label).join(', ')}`}
      />
      <table class="legend">
        <caption>Series (on-demand: the lowest price at each refresh; spot: the lowest spot price now)</caption>
        <thead>
          <tr>
            <th scope="col">Series</th>
            <th scope="col">Latest</th>
            <th scope="col">Lowest</th>
            <th scope="col">Highest</th>
          </tr>
        </thead>
        <tbody>
          {series.map((s) => (
            <tr key={s.label} data-series={s.label}>
              <th scope="row">
                <span class={`swatch swatch-${s.kind} swatch-${s.provider}`} aria-hidden="true" /> {s.label}
              </th>
              <td>{perHour(s.latest)}</td>
              <td>{perHour(s.min)}</td>
              <td>{perHour(s.max)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function PricesPage({ api }: { api: Api }) {
  const pricing = usePoll(() => api.pricing(), 60_000, [api]);
  const [gpu, setGpu] = useState<string | null>(null);
  const [period, setPeriod] = useState<Period>('24h');
  const [history, setHistory] = useState<PriceHistory | null>(null);
  const [historyError, setHistoryError] = useState<unknown>(null);
  const selected = gpu ?? pricing.data?.gpu_types[0]?.gpu_type ?? null;
  const selectedGpu = pricing.data?.gpu_types.find((g) => g.gpu_type === selected);

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
        <Empty>
          No prices yet: the first refresh has not run. Prices come from the providers;{' '}
          <Link to="/settings">connect a provider key</Link> if none is connected.
        </Empty>
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
                    const onDemand = cheapest(g.offers, p, false);
                    const spot = cheapest(g.offers, p, true);
                    return (
                      <td key={p} data-provider={p}>
                        {onDemand === null && spot === null ? '—' : null}
                        {onDemand !== null ? <span class="price">{perHour(onDemand)} on-demand</span> : null}
                        {onDemand !== null && spot !== null ? <br /> : null}
                        {spot !== null ? <span class="price spot">{perHour(spot)} spot</span> : null}
                      </td>
                    );
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
          {history && history.data.length > 0 && selectedGpu && pricing.data ? (
            <HistoryChart history={history} gpu={selectedGpu} snapshot={pricing.data} />
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
