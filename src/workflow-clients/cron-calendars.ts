/**
 * Classic five-field cron (src/domain/cron.ts) as Temporal calendar specs. Classic cron OR-s a restricted
 * day-of-month with a restricted day-of-week; a Temporal calendar spec AND-s every field, so when both day
 * fields are restricted the expression becomes two specs, one per day field, and Temporal fires on their union.
 */
import type { CalendarSpec, DayOfWeek, Month } from '@temporalio/client';
import { parseCron } from '../domain/cron';

const TEMPORAL_MONTHS: readonly Month[] = [
  'JANUARY',
  'FEBRUARY',
  'MARCH',
  'APRIL',
  'MAY',
  'JUNE',
  'JULY',
  'AUGUST',
  'SEPTEMBER',
  'OCTOBER',
  'NOVEMBER',
  'DECEMBER',
];
const TEMPORAL_DAYS: readonly DayOfWeek[] = [
  'SUNDAY',
  'MONDAY',
  'TUESDAY',
  'WEDNESDAY',
  'THURSDAY',
  'FRIDAY',
  'SATURDAY',
];

/** Compresses sorted values into inclusive ranges: [1,2,3,5] → [{1..3},{5..5}]. */
function toRanges(values: readonly number[]): { start: number; end: number }[] {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const ranges: { start: number; end: number }[] = [];
  for (const v of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && last.end === v - 1) last.end = v;
    else ranges.push({ start: v, end: v });
  }
  return ranges;
}

/**
 * The Temporal calendar specs that fire exactly when the classic expression does (UTC): one spec, or two
 * whose union is the day-of-month OR day-of-week rule.
 */
export function toTemporalCalendars(text: string): CalendarSpec[] {
  const parsed = parseCron(text);
  const f = parsed.expression.fields;
  const numeric = (values: readonly unknown[]) => values.filter((v): v is number => typeof v === 'number');
  const minute = toRanges(numeric(f.minute.values));
  const hour = toRanges(numeric(f.hour.values));
  const month = toRanges(numeric(f.month.values)).map((r) => ({
    start: TEMPORAL_MONTHS[r.start - 1]!,
    end: TEMPORAL_MONTHS[r.end - 1]!,
  }));
  const dayOfMonth = toRanges(numeric(f.dayOfMonth.values));
  const dayOfWeek = toRanges(numeric(f.dayOfWeek.values).map((d) => d % 7)).map((r) => ({
    start: TEMPORAL_DAYS[r.start]!,
    end: TEMPORAL_DAYS[r.end]!,
  }));
  const base = { second: 0, minute, hour, month } as const;
  if (parsed.dayOfMonthRestricted && parsed.dayOfWeekRestricted) {
    return [
      { ...base, dayOfMonth, dayOfWeek: '*', comment: `${text} (day of month)` },
      { ...base, dayOfMonth: '*', dayOfWeek, comment: `${text} (day of week)` },
    ];
  }
  return [
    {
      ...base,
      dayOfMonth: parsed.dayOfMonthRestricted ? dayOfMonth : '*',
      dayOfWeek: parsed.dayOfWeekRestricted ? dayOfWeek : '*',
      comment: text,
    },
  ];
}
