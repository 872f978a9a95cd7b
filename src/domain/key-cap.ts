/**
 * A spend-capped API key's admission rule, beside the account balance rule: a launch (or scheduled run) by
 * the key is admitted only while the key's charged spend in its period (UTC day or month), plus the next hour
 * of its live instances, plus this launch's first hour, fits the cap. A cap covers the keys made under its key
 * too (a key family), so a launch must fit every capped key above the launching one as well. A launch of
 * unknown price needs room left under the cap. Decided under the account's lock with the balance
 * (`admit_launch`, migration 018); here the refusal's words, from the figures it was decided on. All amounts
 * are micros.
 */
import { microsToDollars } from './money';

const dollars = (micros: number) => `$${microsToDollars(micros).toFixed(2)}`;

/** What the key's cap leaves, read under the account's lock. */
export interface KeyCapStanding {
  name: string;
  prefix: string;
  limitMicros: number;
  period: 'day' | 'month';
  /** Charged spend of the key's instances since the start of the period. */
  chargedMicros: number;
  /** Hourly price of the key's live instances (the provider's price, else the quote it was admitted at). */
  liveHourlyMicros: number;
  /**
   * True when the cap is that of a key above the launching one (the key that made it, or one further up): the
   * figures are then those of that key and every key made under it, which share its cap.
   */
  family?: boolean;
}

/** Whether a launch adding `hourlyMicros` (null: unknown) fits the key's cap. */
export function fitsKeyCap(standing: KeyCapStanding, hourlyMicros: number | null): boolean {
  const committed = standing.chargedMicros + standing.liveHourlyMicros;
  return hourlyMicros === null ? committed < standing.limitMicros : committed + hourlyMicros <= standing.limitMicros;
}

/** The 402 message of a launch the key's cap refuses: the cap and the numbers. */
export function keyCapMessage(standing: KeyCapStanding, hourlyMicros: number | null): string {
  const needed = standing.chargedMicros + standing.liveHourlyMicros + (hourlyMicros ?? 0);
  const period = standing.period === 'day' ? 'today (UTC)' : 'this month (UTC)';
  const who = standing.family
    ? `The API key "${standing.name}" (${standing.prefix}…), which made this key or a key above it, ` +
      `is capped at ${dollars(standing.limitMicros)} per ${standing.period} for itself and every key made under it: ` +
      `together they have spent ${dollars(standing.chargedMicros)} ${period}, ` +
      `their live instances cost ${dollars(standing.liveHourlyMicros)} for the next hour`
    : `This API key ("${standing.name}", ${standing.prefix}…) ` +
      `is capped at ${dollars(standing.limitMicros)} per ${standing.period}: ` +
      `it has spent ${dollars(standing.chargedMicros)} ${period}, ` +
      `its live instances cost ${dollars(standing.liveHourlyMicros)} for the next hour`;
  return (
    who +
    (hourlyMicros === null ? '' : `, and this launch needs ${dollars(hourlyMicros)} for its first hour`) +
    ` (${dollars(needed)} against the cap). Use a key with a higher cap, or end instances of this key.`
  );
}

/**
 * Why a launch by a revoked or expired key (or one of another account) is refused: an API request with it is
 * refused at the door (401); this answers the schedule made with a key that was revoked (or expired) since.
 */
export function unusableKeyMessage(key: { name?: string; prefix?: string; revoked: boolean }): string {
  const which = key.name === undefined ? 'The API key' : `The API key "${key.name}" (${key.prefix}…)`;
  return (
    `${which} that made this launch ${key.revoked ? 'was revoked' : 'has expired'}: ` +
    'nothing is launched on its behalf, and the runs of schedules it last created or replaced are refused. ' +
    'Replace the schedule (PUT) with a live key to run it again.'
  );
}
