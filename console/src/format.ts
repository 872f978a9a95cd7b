/** Display helpers: provider names, money in dollars, durations, and "as of" times. */
import type { ProviderId } from './types';

export const PROVIDER_NAMES: Record<ProviderId, string> = { runpod: 'RunPod', vastai: 'Vast.ai', lambda: 'Lambda' };

/** One formatter per precision: `toLocaleString` builds a new one on every call (a 1,000-row table pays for it). */
const formatters = new Map<number, Intl.NumberFormat>();

export function dollars(n: number | null | undefined, digits = 2): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const sign = n < 0 ? '−' : '';
  let f = formatters.get(digits);
  if (!f)
    formatters.set(
      digits,
      (f = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })),
    );
  return `${sign}$${f.format(Math.abs(n))}`;
}

export function perHour(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : `${dollars(n, n < 1 ? 3 : 2)}/h`;
}

export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s % 60}s`;
  return `${s}s`;
}

export function timeAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return '—';
  return ms < 5_000 ? 'just now' : `${duration(ms)} ago`;
}

export function localTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : d.toLocaleString();
}
