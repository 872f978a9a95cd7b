/**
 * A spend-capped API key's admission rule, checked beside the account balance rule: a launch (or scheduled
 * run) by the key is admitted only while the key's charged spend in its period (UTC day or month), plus the
 * next hour of its live instances, plus this launch's first hour, fits the cap. The refusal is 402
 * `insufficient_balance` naming the key's cap and the numbers.
 */
import type { ApiKeyQueries, ApiKeyRow } from '../db/queries/api-keys';
import { microsToDollars } from '../domain/money';
import { InsufficientBalanceError } from '../errors';

const dollars = (micros: number) => `$${microsToDollars(micros).toFixed(2)}`;

export interface KeyCapCheck {
  key: ApiKeyRow;
  /** This launch's hourly price (micros), or null when unknown: then the key needs room left under its cap. */
  hourlyMicros: number | null;
}

/** What the key's cap leaves, or null for an uncapped key. */
export async function keyCapStanding(keys: Pick<ApiKeyQueries, 'spendInPeriod'>, key: ApiKeyRow) {
  if (key.spend_limit_micros === null || key.spend_limit_period === null) return null;
  const spend = await keys.spendInPeriod(key);
  return { limitMicros: key.spend_limit_micros, period: key.spend_limit_period, ...spend };
}

/** Throws 402 when the launch would take the key past its cap (see the module comment); an uncapped key passes. */
export async function assertWithinKeyCap(keys: Pick<ApiKeyQueries, 'spendInPeriod'>, check: KeyCapCheck): Promise<void> {
  const standing = await keyCapStanding(keys, check.key);
  if (!standing) return;
  const committed = standing.chargedMicros + standing.liveHourlyMicros;
  const needed = committed + (check.hourlyMicros ?? 0);
  const fits = check.hourlyMicros === null ? committed < standing.limitMicros : needed <= standing.limitMicros;
  if (fits) return;
  const period = standing.period === 'day' ? 'today (UTC)' : 'this month (UTC)';
  throw new InsufficientBalanceError(
    `This API key ("${check.key.name}", ${check.key.key_prefix}…) is capped at ${dollars(standing.limitMicros)} per ${standing.period}: ` +
      `it has spent ${dollars(standing.chargedMicros)} ${period}, its live instances cost ${dollars(standing.liveHourlyMicros)} for the next hour` +
      (check.hourlyMicros === null ? '' : `, and this launch needs ${dollars(check.hourlyMicros)} for its first hour`) +
      ` (${dollars(needed)} against the cap). Use a key with a higher cap, or end instances of this key.`,
  );
}
