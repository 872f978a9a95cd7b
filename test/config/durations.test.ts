/**
 * Duration settings are parsed once, in the config schema: the process reads milliseconds, and a bad value
 * stops it with a message naming the variable.
 */
import { ConfigError, parseConfig } from '../../src/config';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('the configuration was accepted');
}

describe('duration settings', () => {
  it('read as milliseconds, with the documented defaults', () => {
    const config = parseConfig({});
    expect(config.METER_INTERVAL).toBe(60 * 60_000);
    expect(config.INSTANCE_OBSERVE_INTERVAL).toBe(60_000);
    expect(config.IDLE_STOP_MINUTE).toBe(60_000);
    expect(config.BALANCE_GRACE_PERIOD).toBe(30 * 60_000);
    expect(config.WEBHOOK_DISABLE_AFTER).toBe(120 * 3_600_000);
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([
      5_000,
      5 * 60_000,
      30 * 60_000,
      2 * 3_600_000,
      5 * 3_600_000,
      10 * 3_600_000,
      10 * 3_600_000,
    ]);
    expect(config.BOOT_DEADLINES).toEqual({});
  });

  it('take the value from the environment', () => {
    const config = parseConfig({
      METER_INTERVAL: '90s',
      LAUNCH_ANSWER_WITHIN: '2m',
      WEBHOOK_RETRY_SCHEDULE: '1s, 2s',
      BOOT_DEADLINES: 'runpod=5m,lambda:h100-80gb-sxm=25m',
    });
    expect(config.METER_INTERVAL).toBe(90_000);
    expect(config.LAUNCH_ANSWER_WITHIN).toBe(120_000);
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([1_000, 2_000]);
    expect(config.BOOT_DEADLINES).toEqual({ runpod: 5 * 60_000, 'lambda:h100-80gb-sxm': 25 * 60_000 });
  });

  it('refuse a bad value, naming each variable', () => {
    expect(problemsOf({ METER_INTERVAL: 'soon', HTTP_BODY_TIMEOUT: '10', WEBHOOK_CLAIM_LEASE: '2 m' })).toEqual([
      'HTTP_BODY_TIMEOUT: must look like 30s, 5m or 1h',
      'METER_INTERVAL: must look like 30s, 5m or 1h',
      'WEBHOOK_CLAIM_LEASE: must look like 30s, 5m or 1h',
    ]);
    expect(problemsOf({ WEBHOOK_RETRY_SCHEDULE: '5s,often' })).toEqual([
      'WEBHOOK_RETRY_SCHEDULE: must be durations like 5s,5m,30m,2h',
    ]);
    expect(problemsOf({ BOOT_DEADLINES: 'runpod=ages' })).toEqual([
      'BOOT_DEADLINES: must look like runpod=5m,lambda:h100-80gb-sxm=25m',
    ]);
  });

  it('refuse zero where a loop waits that long between rounds', () => {
    expect(problemsOf({ INSTANCE_OBSERVE_INTERVAL: '0s', SCHEDULE_MIN_INTERVAL: '0m' })).toEqual([
      'SCHEDULE_MIN_INTERVAL: must be longer than 0',
      'INSTANCE_OBSERVE_INTERVAL: must be longer than 0',
    ]);
  });
});
