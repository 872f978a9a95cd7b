/**
 * How long a launch may take to reach running before it is ended as failed, and which provider statuses say a
 * boot has failed. Pure: the activity feeds it the service's own past boot times.
 */
import type { ProviderId, ProviderInstance } from '../providers/types';

/**
 * Defaults per provider (and optionally per GPU slug, `provider:gpu`), generous next to what the providers say
 * a boot takes (RunPod: a pod is up within minutes once its image is pulled; Vast.ai: image pulls on varied
 * hosts take the longest; Lambda: "a few minutes", up to ~10 for large multi-GPU types). Overridable with
 * `BOOT_DEADLINES`; replaced by what the service learned once it has {@link MIN_LEARNED_BOOTS} boots.
 */
export const DEFAULT_BOOT_DEADLINES_MS: Readonly<Record<string, number>> = {
  runpod: 10 * 60_000,
  vastai: 20 * 60_000,
  lambda: 15 * 60_000,
};

/** Past boots needed before the learned deadline replaces the default. */
export const MIN_LEARNED_BOOTS = 20;
/** The learned deadline is the p95 of past boots times this: the 5% slowest normal boots still make it. */
export const LEARNED_MARGIN = 1.5;
/** Never less than this, however fast past boots were (a burst of quick boots must not doom a slower pull). */
export const MIN_LEARNED_DEADLINE_MS = 2 * 60_000;

/** Parses `runpod=10m,vastai:h100-80gb-sxm=25m` (durations as `parseDuration` reads them) into a table. */
export function parseBootDeadlines(spec: string, parseDurationMs: (d: string) => number): Record<string, number> {
  const table: Record<string, number> = {};
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key, duration] = part.split('=');
    if (!key || !duration || !/^(runpod|vastai|lambda)(:[a-z0-9-]+)?$/.test(key.trim()))
      throw new Error(`not "provider[:gpu]=duration": ${part}`);
    table[key.trim()] = parseDurationMs(duration.trim());
  }
  return table;
}

/** The configured deadline: `provider:gpu` first, then `provider`, then the defaults. */
export function configuredBootDeadlineMs(
  provider: ProviderId,
  gpuType: string,
  overrides: Readonly<Record<string, number>> = {},
): number {
  return (
    overrides[`${provider}:${gpuType}`] ??
    overrides[provider] ??
    DEFAULT_BOOT_DEADLINES_MS[`${provider}:${gpuType}`] ??
    DEFAULT_BOOT_DEADLINES_MS[provider]!
  );
}

/**
 * The boot deadline for a launch: with at least {@link MIN_LEARNED_BOOTS} past boots (ms from the launch to
 * running, same provider and GPU), their p95 × {@link LEARNED_MARGIN} (at least {@link MIN_LEARNED_DEADLINE_MS});
 * else the configured one.
 */
export function bootDeadlineMs(pastBootsMs: readonly number[], configuredMs: number): { ms: number; learned: boolean } {
  if (pastBootsMs.length < MIN_LEARNED_BOOTS) return { ms: configuredMs, learned: false };
  const sorted = [...pastBootsMs].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!;
  return { ms: Math.max(MIN_LEARNED_DEADLINE_MS, Math.round(p95 * LEARNED_MARGIN)), learned: true };
}

/**
 * Why what the provider says about an instance that has not started yet means its boot failed, or null.
 * RunPod `EXITED` (normalized `stopped`) or `ERROR` before the start; Vast.ai `exited` or an error state;
 * Lambda `unhealthy` (normalized `failed`); gone or terminated anywhere.
 */
export function bootFailure(seen: { gone: boolean; instance: ProviderInstance | null }): string | null {
  if (seen.gone || !seen.instance || seen.instance.status === 'terminated')
    return 'the provider lost the instance while it booted';
  const i = seen.instance;
  const word = i.providerStatus ?? i.status;
  if (i.status === 'failed' || i.status === 'stopped')
    return `the provider reported ${word} before the instance started`;
  if (i.provider === 'vastai' && /error|fail|offline/i.test(i.providerStatus ?? ''))
    return `the provider reported ${word} before the instance started`;
  return null;
}

/**
 * The boot decisions launch workflows make (workflows/launch/await-running.ts), version 1. Running workflows
 * replay on what they decided: a change to a decision here is a new version beside this one (`BOOT_DECISIONS_V2`
 * with the new function), chosen in the workflow behind a `patched()` marker, while this one stays until no run
 * that started on it is open. test/workflows/replay-decisions.test.ts fails when this module's code changes
 * without that step being considered (docs/operations.md, "Deploys").
 */
export const BOOT_DECISIONS_V1 = Object.freeze({ bootFailure });
