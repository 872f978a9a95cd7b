/**
 * Prices: the cross-provider comparison table (on-demand and spot each labelled) and, per GPU, the price chart
 * (24h / 7d / 30d): per provider its on-demand line and, where it sells spot, its spot line, with a legend of
 * every series' values.
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
 * A line says its provider by colour and width and its kind by dash and marker: on-demand solid with filled
 * markers, spot dashed with open ones. The widths narrow in drawing order, so a line lying on another (two
 * providers at the same price) leaves the wider one showing on both sides, and the legend under the chart gives
 * every series' values.
 */
const WIDTHS: Record<ProviderId, number> = { runpod: 6, vastai: 4, lambda: 2 };
const SPOT_DASH = [8, 5];
type Period = '24h' | '7d' | '30d';

/** Both series of a GPU over one period, as GET /v1/pricing/history answers them. */
export interface PriceHistories {
  onDemand: PriceHistory;
  spot: PriceHistory;
}

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
 * The chart's series: per provider its on-demand history, then per provider with spot prices its spot history
 * (a provider that sells no spot has no points there, so no series), all on the union of their timestamps.
 */
export function priceSeries(histories: PriceHistories): { xs: number[]; series: PriceSeries[] } {
  const second = (timestamp: string) => Math.floor(Date.parse(timestamp) / 1000);
  const kinds = [
    { kind: 'on-demand', history: histories.onDemand },
    { kind: 'spot', history: histories.spot },
  ] as const;
  const xs = [...new Set(kinds.flatMap((k) => k.history.data.map((d) => second(d.timestamp))))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const series: PriceSeries[] = [];
  for (const { kind, history } of kinds) {
    for (const p of PROVIDERS) {
      const points = history.data.filter((d) => d.provider === p);
      if (!points.length) continue;
      const values = xs.map((): number | null => null);
      for (const d of points) values[index.get(second(d.timestamp))!] = d.min_price_per_hour;
      const known = values.filter((v): v is number => v !== null);
      series.push({
        label: `${PROVIDER_NAMES[p]} ${kind}`,
        provider: p,
        kind,
        values,
        latest: [...values].reverse().find((v) => v !== null) ?? null,
        min: Math.min(...known),
        max: Math.max(...known),
      });
    }
  }
  return { xs, series };
}

/** The cheapest available offer of a provider for a GPU, on-demand or spot. */
function cheapest(offers: PricingSnapshot['gpu_types'][number]['offers'], p: ProviderId, spot: boolean): number | null {
  return offers
    .filter((o) => o.provider === p && o.spot === spot && o.availability > 0)
    .reduce<number | null>((m, o) => (m === null || o.price_per_hour < m ? o.price_per_hour : m), null);
}

function HistoryChart({ histories, gpu }: { histories: PriceHistories; gpu: PricingSnapshot['gpu_types'][number] }) {
  const ref = useRef<HTMLDivElement>(null);
  const { xs, series } = priceSeries(histories);
  const resolution =
    histories.onDemand.resolution === 'every refresh' ? '(every refresh)' : `(per ${histories.onDemand.resolution})`;
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: 280,
        title: `${gpu.display_name}: lowest price per GPU-hour`,
        scales: { x: { time: true } },
        axes: [{}, { label: '$/h', values: (_u, ticks) => ticks.map((t) => `$${t.toFixed(2)}`) }],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: COLORS[s.provider],
            width: s.kind === 'spot' ? 2 : WIDTHS[s.provider],
            ...(s.kind === 'spot' ? { dash: SPOT_DASH } : {}),
            // A refresh that missed a provider leaves a gap: the line does not pretend to know the price then.
            spanGaps: false,
            points:
              s.kind === 'spot'
                ? { show: true, size: 10, width: 2, fill: '#ffffff', stroke: COLORS[s.provider] }
                : { show: true, size: 6, fill: COLORS[s.provider] },
          })),
        ],
      },
      [xs, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    el.dataset.points = String(histories.onDemand.data.length + histories.spot.data.length);
    return () => plot.destroy();
  }, [histories, gpu]);
  return (
    <>
      <div
        ref={ref}
        class="chart"
        role="img"
        aria-label={`Price history of ${gpu.display_name}: ${series.map((s) => s.label).join(', ')}`}
      />
      <table class="legend">
        <caption>{`Series: the lowest on-demand and spot price of each provider ${resolution}`}</caption>
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
  const [histories, setHistories] = useState<PriceHistories | null>(null);
  const [historyError, setHistoryError] = useState<unknown>(null);
  const selected = gpu ?? pricing.data?.gpu_types[0]?.gpu_type ?? null;
  const selectedGpu = pricing.data?.gpu_types.find((g) => g.gpu_type === selected);

  useEffect(() => {
    if (!selected) return;
    let live = true;
    setHistoryError(null);
    Promise.all([api.priceHistory(selected, period), api.priceHistory(selected, period, true)]).then(
      ([onDemand, spot]) => live && setHistories({ onDemand, spot }),
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
          {histories && histories.onDemand.data.length + histories.spot.data.length === 0 ? (
            <Empty>No recorded prices for {selected} in this period yet.</Empty>
          ) : null}
          {histories && histories.onDemand.data.length + histories.spot.data.length > 0 && selectedGpu ? (
            <HistoryChart histories={histories} gpu={selectedGpu} />
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
