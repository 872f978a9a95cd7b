/**
 * Money as the console and the `gpuo` CLI print it: rounded half away from zero on the decimal the API sent.
 * A double such as 0.00015 lies just below its decimal, so `toFixed` would round it down; both must show the
 * same four decimals as each other for the whole micro-dollars the API sends (walked here below 10 cents, where
 * one in 200 differed).
 */
import { dollars, perHour } from '../../console/src/format';
import { money } from '../../src/cli/gpuo/commands/render';

test('a half at the last shown digit rounds away from zero in the console and the CLI alike', () => {
  expect(dollars(0.00015, 4)).toBe('$0.0002');
  expect(dollars(-0.00015, 4)).toBe('−$0.0002');
  expect(dollars(0.00425, 4)).toBe('$0.0043');
  expect(dollars(1.005)).toBe('$1.01');
  expect(perHour(0.0005)).toBe('$0.001/h');
  expect(money(0.00015)).toBe('$0.0002');
  expect(money(-0.00015)).toBe('$-0.0002');
  expect(money(12.34567)).toBe('$12.3457');
});

test('the CLI keeps two to four decimals, no grouping, no negative zero, and a dash for no amount', () => {
  expect(money(1234.5)).toBe('$1234.50');
  expect(money(0.1)).toBe('$0.10');
  expect(money(-0)).toBe('$0.00');
  expect(money(null)).toBe('-');
  expect(money('1.00')).toBe('-');
});

test('every whole micro-dollar below 10 cents shows the same four decimals in the console and the CLI', () => {
  const differ: string[] = [];
  for (let micros = 0; micros < 100_000; micros += 1) {
    const n = micros / 1_000_000;
    // Half away from zero on the integer micros: the decimal the API meant.
    const expected = `$${(Math.round(micros / 100) / 10_000).toFixed(4)}`;
    if (dollars(n, 4) !== expected || money(n).padEnd(expected.length, '0') !== expected) {
      differ.push(`${micros}: console ${dollars(n, 4)}, CLI ${money(n)}, expected ${expected}`);
    }
  }
  expect(differ.slice(0, 5)).toEqual([]);
});
