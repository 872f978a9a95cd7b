/**
 * The spend admission rule, as pure arithmetic: a launch (or scheduled run) is admitted only when
 *
 *   balance − uncharged usage of live instances
 *     ≥ window × (hourly price of every live managed instance + this one)
 *
 * so the balance always covers the next window (default 1 h) of everything running. All amounts are micros.
 */
import { chargeForElapsed, microsToDollars } from './money';

/** BALANCE_ADMISSION_WINDOW's default: the balance covers the next hour of everything running. */
export const DEFAULT_ADMISSION_WINDOW_MS = 3_600_000;

/** What the account holds and burns at the moment of the decision (read under the account's lock). */
export interface SpendFigures {
  balanceMicros: number;
  /** What live instances have run since their last charge: charged later, already spent. */
  unchargedMicros: number;
  /** Hourly price of every live managed instance (provisioning, running, stopping, terminating, unknown). */
  burnPerHourMicros: number;
}

export interface AdmissionFigures extends SpendFigures {
  /** balance − uncharged. */
  availableMicros: number;
  /** The launch's own hourly price; null when nobody quotes one (then it adds nothing, but needs available > 0). */
  addsPerHourMicros: number | null;
  windowMs: number;
  /** window × (burn + adds): what available must reach. */
  requiredMicros: number;
}

export type AdmissionVerdict =
  { admitted: true; figures: AdmissionFigures } | { admitted: false; figures: AdmissionFigures; message: string };

const dollars = (micros: number) => `$${microsToDollars(micros).toFixed(2)}`;

function windowText(ms: number): string {
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? 'the next hour' : `the next ${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return `the next ${ms / 60_000} minutes`;
  return `the next ${Math.round(ms / 1000)} seconds`;
}

/** The admission decision for a launch adding `addsPerHourMicros` to a fleet described by `spend`. */
export function decideAdmission(
  spend: SpendFigures,
  addsPerHourMicros: number | null,
  windowMs: number,
): AdmissionVerdict {
  const availableMicros = spend.balanceMicros - spend.unchargedMicros;
  const requiredMicros = chargeForElapsed(spend.burnPerHourMicros + (addsPerHourMicros ?? 0), windowMs);
  const figures: AdmissionFigures = { ...spend, availableMicros, addsPerHourMicros, windowMs, requiredMicros };
  const admitted =
    addsPerHourMicros === null
      ? availableMicros > 0 && availableMicros >= requiredMicros
      : availableMicros >= requiredMicros;
  if (admitted) return { admitted: true, figures };
  const adds =
    addsPerHourMicros === null ? 'an unknown price (a positive balance is needed)' : `${dollars(addsPerHourMicros)}/h`;
  const message =
    `The balance is ${dollars(spend.balanceMicros)}, ${dollars(spend.unchargedMicros)} of it ` +
    'already run up by live instances and not yet charged; ' +
    `the account's live instances burn ${dollars(spend.burnPerHourMicros)}/h and this launch adds ${adds}, ` +
    `so ${windowText(windowMs)} needs ${dollars(requiredMicros)} and ${dollars(availableMicros)} is available. ` +
    'Add credit with POST /v1/billing/credit or end an instance.';
  return { admitted: false, figures, message };
}
