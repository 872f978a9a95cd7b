/**
 * Per-service-key rate limiting: a token bucket per key in this API process (burst, then a steady rate).
 * With several API processes behind a load balancer each enforces its own bucket, so the effective limit
 * is per process; that keeps one runaway client from starving the others without a shared store.
 */
import { RateLimitedError } from '../errors';

export interface RateLimitSettings {
  /** Requests a key may make at once. */
  burst: number;
  /** Steady requests per minute. */
  perMinute: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `key` or throws 429 `rate_limited` with the seconds until the next token. */
  take(key: string): void {
    const now = this.now();
    const perMs = this.settings.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.settings.burst, updatedAt: now };
    bucket.tokens = Math.min(this.settings.burst, bucket.tokens + (now - bucket.updatedAt) * perMs);
    bucket.updatedAt = now;
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      throw new RateLimitedError(
        `Too many requests for this service key: at most ${this.settings.perMinute} a minute (bursts of ${this.settings.burst}).`,
        (1 - bucket.tokens) / perMs / 1000,
      );
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 50_000) this.forgetIdle(now);
  }

  /** Buckets that have refilled completely carry no information; drop them to bound memory. */
  private forgetIdle(now: number): void {
    const fullAfterMs = this.settings.burst / (this.settings.perMinute / 60_000);
    for (const [key, b] of this.buckets) if (now - b.updatedAt >= fullAfterMs) this.buckets.delete(key);
  }
}
