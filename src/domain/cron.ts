/**
 * Classic five-field cron (minute hour day-of-month month day-of-week, UTC) for schedules: validation with a
 * reason and next firing times (cron-parser). Pure: the translation into Temporal calendar specs lives with
 * the schedules client module (src/workflow-clients/cron-calendars.ts).
 *
 * Classic cron OR-s a restricted day-of-month with a restricted day-of-week (`0 0 1 * 1` fires on the 1st and
 * on every Monday); a Temporal calendar spec AND-s every field. When both day fields are restricted the
 * expression therefore becomes two calendar specs, one per day field with the other left at `*`, and
 * Temporal fires on their union. "Restricted" means exactly what cron-parser means: anything but `*`
 * (so `*\/2` in day-of-month is restricted), which keeps Temporal's firings equal to cron-parser's.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';

export class CronError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CronError';
  }
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly FieldRule[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day of week', min: 0, max: 7, names: DAY_NAMES },
];

/** One value: a number, or (month and day of week) a three-letter English name. */
function checkValue(text: string, rule: FieldRule): void {
  if (/^\d{1,2}$/.test(text)) {
    const n = Number(text);
    if (n < rule.min || n > rule.max) throw new CronError(`${rule.name}: ${text} is outside ${rule.min}-${rule.max}`);
    return;
  }
  if (rule.names && rule.names.includes(text.toUpperCase())) return;
  const allowed = rule.names
    ? `a number ${rule.min}-${rule.max} or one of ${rule.names.join(', ')}`
    : `a number ${rule.min}-${rule.max}`;
  throw new CronError(`${rule.name}: "${text}" is not ${allowed}`);
}

/** Lists, ranges and steps only: the standard syntax (no L, W, #, ?, H or seconds). */
function checkField(text: string, rule: FieldRule): void {
  for (const part of text.split(',')) {
    if (part === '') throw new CronError(`${rule.name}: empty list element in "${text}"`);
    const [range, step, extra] = part.split('/');
    if (extra !== undefined) throw new CronError(`${rule.name}: "${part}" has more than one step`);
    if (step !== undefined && !/^\d{1,2}$/.test(step))
      throw new CronError(`${rule.name}: step "${step}" is not a number`);
    if (step !== undefined && Number(step) === 0) throw new CronError(`${rule.name}: step must be at least 1`);
    if (range === '*') continue;
    const ends = range!.split('-');
    if (ends.length > 2 || ends.some((e) => e === ''))
      throw new CronError(`${rule.name}: "${range}" is not a value or a range`);
    for (const end of ends) checkValue(end, rule);
  }
}

export interface ParsedCron {
  expression: CronExpression;
  /** cron-parser's own view of the day fields: restricted = not `*`. */
  dayOfMonthRestricted: boolean;
  dayOfWeekRestricted: boolean;
}

/** Parses a five-field expression in UTC; throws {@link CronError} saying what is wrong. */
export function parseCron(text: string, currentDate: Date = new Date()): ParsedCron {
  if (typeof text !== 'string' || text.trim() === '') throw new CronError('the expression is empty');
  const fields = text.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw new CronError(
      `expected 5 space-separated fields (minute hour day-of-month month day-of-week), got ${fields.length}`,
    );
  }
  fields.forEach((f, i) => checkField(f, FIELDS[i]!));
  let expression: CronExpression;
  try {
    expression = CronExpressionParser.parse(fields.join(' '), { tz: 'UTC', currentDate });
  } catch (err) {
    throw new CronError((err as Error).message);
  }
  // A day-of-month list that never exists in the months it allows (`0 0 30 2 *`) would never fire.
  try {
    expression.next();
    expression.reset(currentDate);
  } catch {
    throw new CronError('the expression never fires (no such day in the months it allows)');
  }
  return {
    expression,
    dayOfMonthRestricted: !expression.fields.dayOfMonth.isWildcard,
    dayOfWeekRestricted: !expression.fields.dayOfWeek.isWildcard,
  };
}

/** The reason `text` is not a valid schedule cron, or null when it is. */
export function cronProblem(text: string): string | null {
  try {
    parseCron(text);
    return null;
  } catch (err) {
    if (err instanceof CronError) return err.message;
    throw err;
  }
}

/** The next `count` firing times strictly after `after`, as cron-parser computes them. */
export function nextFirings(text: string, after: Date, count: number): Date[] {
  const { expression } = parseCron(text, after);
  const out: Date[] = [];
  for (let i = 0; i < count; i++) out.push(expression.next().toDate());
  return out;
}

const numericValues = (values: readonly unknown[]) => values.filter((v): v is number => typeof v === 'number');

/**
 * The shortest time between two consecutive firings of a valid expression, in ms. Every firing day has the
 * same times (minute × hour, UTC), so the gaps are those within a day and, when two consecutive days both
 * fire, the one across midnight (last time of a day to the first of the next).
 */
export function shortestGapMs(text: string): number {
  const fields = text.trim().split(/\s+/);
  const f = parseCron(text).expression.fields;
  const minutes = numericValues(f.minute.values);
  const times = [...new Set(numericValues(f.hour.values).flatMap((h) => minutes.map((m) => h * 60 + m)))].sort(
    (a, b) => a - b,
  );
  let gap = Infinity;
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, times[i]! - times[i - 1]!);
  const acrossMidnight = 1440 - times[times.length - 1]! + times[0]!;
  if (acrossMidnight < gap && firesOnConsecutiveDays(fields.slice(2).join(' '))) gap = acrossMidnight;
  return gap * 60_000;
}

/**
 * Whether the day fields (day of month, month, day of week) allow two consecutive days. Eight years of firing
 * days cover every calendar case (leap days included); a daily expression answers on its second day.
 */
function firesOnConsecutiveDays(dayFields: string): boolean {
  const days = CronExpressionParser.parse(`0 0 ${dayFields}`, {
    tz: 'UTC',
    currentDate: new Date(Date.UTC(2000, 0, 1)),
  });
  let previous = days.next().getTime();
  for (let i = 0; i < 8 * 366; i++) {
    const day = days.next().getTime();
    if (day - previous === 86_400_000) return true;
    if (day > Date.UTC(2008, 0, 2)) return false;
    previous = day;
  }
  return false;
}
