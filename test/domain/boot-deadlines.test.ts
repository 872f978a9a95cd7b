import {
  bootDeadlineMs,
  bootFailure,
  configuredBootDeadlineMs,
  DEFAULT_BOOT_DEADLINES_MS,
  LEARNED_MARGIN,
  MIN_LEARNED_BOOTS,
  MIN_LEARNED_DEADLINE_MS,
  parseBootDeadlines,
} from '../../src/domain/boot-deadlines';
import type { ProviderInstance } from '../../src/providers/types';

const minutes = (n: number) => n * 60_000;
const parseDuration = (d: string) =>
  Number(d.slice(0, -1)) * ({ s: 1000, m: 60_000, h: 3_600_000 } as Record<string, number>)[d.slice(-1)]!;

describe('the boot deadline', () => {
  it('is the configured one until 20 boots are recorded, then follows their p95', () => {
    const configured = minutes(10);
    const boots = Array.from({ length: MIN_LEARNED_BOOTS - 1 }, (_, i) => 100_000 + i * 1000);
    expect(bootDeadlineMs(boots, configured)).toEqual({ ms: configured, learned: false });
    // 20 boots of 100 s … 119 s: p95 is the 19th (118 s).
    const twenty = [...boots, 119_000];
    expect(bootDeadlineMs(twenty, configured)).toEqual({ ms: 118_000 * LEARNED_MARGIN, learned: true });
    // Slower boots recorded: the deadline moves up with them, past the configured default if need be.
    const slow = Array.from({ length: 100 }, (_, i) => minutes(8) + i * 3000);
    const learned = bootDeadlineMs(slow, configured);
    expect(learned.learned).toBe(true);
    expect(learned.ms).toBe(Math.round((minutes(8) + 94 * 3000) * LEARNED_MARGIN));
    expect(learned.ms).toBeGreaterThan(configured);
    // Order does not matter, one outlier above the p95 does not move it.
    const withOutlier = [...twenty].reverse();
    withOutlier[0] = minutes(60);
    expect(bootDeadlineMs(withOutlier, configured).ms).toBe(118_000 * LEARNED_MARGIN);
    // Fast boots (seconds) never make the deadline shorter than the floor.
    expect(
      bootDeadlineMs(
        Array.from({ length: 50 }, () => 2_000),
        configured,
      ),
    ).toEqual({ ms: MIN_LEARNED_DEADLINE_MS, learned: true });
  });

  it('is configured per provider and per provider and GPU, over the defaults', () => {
    const table = parseBootDeadlines('runpod=5m, lambda:h100-80gb-sxm=25m', parseDuration);
    expect(table).toEqual({ runpod: minutes(5), 'lambda:h100-80gb-sxm': minutes(25) });
    expect(configuredBootDeadlineMs('runpod', 'rtx-a6000', table)).toBe(minutes(5));
    expect(configuredBootDeadlineMs('lambda', 'h100-80gb-sxm', table)).toBe(minutes(25));
    expect(configuredBootDeadlineMs('lambda', 'a10-24gb', table)).toBe(DEFAULT_BOOT_DEADLINES_MS.lambda);
    expect(configuredBootDeadlineMs('vastai', 'rtx-a6000')).toBe(DEFAULT_BOOT_DEADLINES_MS.vastai);
    expect(() => parseBootDeadlines('aws=5m', parseDuration)).toThrow(/provider\[:gpu\]=duration/);
  });
});

describe('a failed boot', () => {
  const instance = (
    provider: ProviderInstance['provider'],
    status: ProviderInstance['status'],
    providerStatus: string,
  ): ProviderInstance => ({
    id: 'i1',
    provider,
    name: null,
    status,
    providerStatus,
    gpuType: null,
    gpuCount: 1,
    pricePerHour: null,
    spot: false,
    region: null,
    dockerImage: null,
    publicIp: null,
    ssh: null,
    createdAt: null,
    startedAt: null,
  });
  it('is what each provider says when a boot fails; booting is not', () => {
    expect(bootFailure({ gone: false, instance: instance('runpod', 'stopped', 'EXITED') })).toMatch(
      /EXITED before the instance started/,
    );
    expect(bootFailure({ gone: false, instance: instance('runpod', 'failed', 'ERROR') })).toMatch(/ERROR/);
    expect(bootFailure({ gone: false, instance: instance('vastai', 'stopped', 'exited') })).toMatch(/exited/);
    expect(bootFailure({ gone: false, instance: instance('vastai', 'unknown', 'error') })).toMatch(/error/);
    expect(bootFailure({ gone: false, instance: instance('lambda', 'failed', 'unhealthy') })).toMatch(/unhealthy/);
    expect(bootFailure({ gone: false, instance: instance('lambda', 'terminated', 'terminated') })).toMatch(
      /lost the instance/,
    );
    expect(bootFailure({ gone: true, instance: null })).toMatch(/lost the instance/);
    expect(bootFailure({ gone: false, instance: instance('runpod', 'provisioning', 'STARTING') })).toBeNull();
    expect(bootFailure({ gone: false, instance: instance('vastai', 'provisioning', 'loading') })).toBeNull();
    expect(bootFailure({ gone: false, instance: instance('lambda', 'provisioning', 'booting') })).toBeNull();
  });
});
