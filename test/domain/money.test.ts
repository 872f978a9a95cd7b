import { chargeForElapsed, dollarsToMicros, microsToDollars } from '../../src/domain/money';

describe('money', () => {
  it('converts dollars to integer microdollars exactly, rounding at the sixth decimal', () => {
    expect(dollarsToMicros(0.1 + 0.2)).toBe(300_000);
    expect(dollarsToMicros(2.99)).toBe(2_990_000);
    expect(dollarsToMicros(-1.0000005)).toBe(-1_000_001);
    expect(microsToDollars(2_990_000)).toBe(2.99);
    expect(() => dollarsToMicros(Number.NaN)).toThrow(RangeError);
  });

  it('charges price × elapsed time to the microdollar', () => {
    expect(chargeForElapsed(2_990_000, 3_600_000)).toBe(2_990_000); // one hour
    expect(chargeForElapsed(2_990_000, 1_000)).toBe(831); // one second: 830.55… rounds to 831
    expect(chargeForElapsed(2_990_000, 0)).toBe(0);
  });

  it('charging cumulative amounts per interval adds up to one charge over the whole run', () => {
    // What metering does: each interval is charged as charge(start→to) − charge(start→from).
    const price = 1_234_567;
    const bounds = [0, 999, 61_001, 3_600_000, 3_600_001, 7_777_777];
    let total = 0;
    for (let i = 1; i < bounds.length; i++)
      total += chargeForElapsed(price, bounds[i]!) - chargeForElapsed(price, bounds[i - 1]!);
    expect(total).toBe(chargeForElapsed(price, bounds[bounds.length - 1]!));
  });
});
