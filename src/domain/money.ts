/**
 * Money is held as integer micro-dollars (1 dollar = 1_000_000 micros) everywhere it is stored or summed,
 * so charges and balances are exact. Dollars (JSON numbers) exist only at the edges.
 */
export const MICROS_PER_DOLLAR = 1_000_000;

/** Converts a dollar amount to micro-dollars, rounding half away from zero at the sixth decimal. */
export function dollarsToMicros(dollars: number): number {
  if (!Number.isFinite(dollars)) throw new RangeError(`not a finite amount: ${dollars}`);
  const micros = Math.sign(dollars) * Math.round(Math.abs(dollars) * MICROS_PER_DOLLAR);
  if (!Number.isSafeInteger(micros)) throw new RangeError(`amount out of range: ${dollars}`);
  return micros === 0 ? 0 : micros;
}

/** Converts micro-dollars to a dollar number for JSON output. */
export function microsToDollars(micros: number): number {
  return micros / MICROS_PER_DOLLAR;
}

/**
 * The charge for `elapsedMs` at `pricePerHourMicros`, in micros, rounded half up. Summing the charges of
 * consecutive intervals can differ from one charge over the union by at most one micro per interval; metering
 * therefore charges each interval from the run's start (`chargeThrough`), never by adding rounded pieces.
 */
export function chargeForElapsed(pricePerHourMicros: number, elapsedMs: number): number {
  if (elapsedMs <= 0) return 0;
  // pricePerHourMicros * elapsedMs stays far below 2^53 for any real price and duration (e.g. $1000/h for a year).
  return Math.round((pricePerHourMicros * elapsedMs) / 3_600_000);
}
