/**
 * Per-account rate limiting (all of an account's keys draw on one budget): a token bucket per account in this
 * API process smooths bursts, and the steady rate (`perMinute`) is counted across every API process through
 * {@link SharedWindowLimits} (one-minute windows in Postgres, reserved in blocks: no database round trip per
 * request).
 */
import type { Context, Middleware } from 'koa';
import { RateLimitedError } from '../errors';
import type { SharedWindowLimits } from './shared-rate-limit';

/**
 * Unauthenticated requests (public pricing, docs, the Stripe callback) per client address and minute,
 * counted across API processes. Synchronous while this process holds an allowance for the address.
 */
export function publicRequestLimit(limits: SharedWindowLimits, perMinute: number): Middleware {
  const refusal = () =>
    new RateLimitedError(
      `Too many unauthenticated requests from this address: at most ${perMinute} a minute.`,
      limits.retryAfterSeconds(),
    );
  // The key of a connection's address, made once per connection: without a forwarding header the address
  // is the socket's, so no request builds (and hashes) a new key string.
  const socketKeys = new WeakMap<object, string>();
  let header = '';
  let headerLower = '';
  const keyOf = (ctx: Context): string => {
    if (ctx.app.proxy) {
      if (ctx.app.proxyIpHeader !== header) headerLower = (header = ctx.app.proxyIpHeader).toLowerCase();
      if (ctx.req.headers[headerLower] !== undefined) return `ip:${ctx.ip}`;
    }
    const socket = ctx.req.socket;
    let key = socketKeys.get(socket);
    if (key === undefined) socketKeys.set(socket, (key = `ip:${ctx.ip}`));
    return key;
  };
  return (ctx, next) => {
    const accepted = limits.take(keyOf(ctx), perMinute);
    if (accepted === true) return next();
    if (accepted === false) throw refusal();
    return accepted.then((ok) => {
      if (!ok) throw refusal();
      return next();
    });
  };
}

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
    private readonly shared?: SharedWindowLimits,
  ) {}

  /**
   * Takes one request for `key`, or throws 429 `rate_limited` with the seconds until one would pass: first
   * this process's burst bucket, then the minute's count shared by every process (a promise only when this
   * process must reserve more of it).
   */
  take(key: string): void | Promise<void> {
    this.takeFromBucket(key);
    if (!this.shared) return;
    const accepted = this.shared.take(`key:${key}`, this.settings.perMinute);
    if (accepted === true) return;
    if (accepted === false) throw this.sharedRefusal();
    return accepted.then((ok) => {
      if (!ok) throw this.sharedRefusal();
    });
  }

  private sharedRefusal(): RateLimitedError {
    return new RateLimitedError(
      `Too many requests for this account (all its keys together): at most ${this.settings.perMinute} a minute.`,
      this.shared!.retryAfterSeconds(),
    );
  }

  private takeFromBucket(key: string): void {
    const now = this.now();
    const perMs = this.settings.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.settings.burst, updatedAt: now };
    bucket.tokens = Math.min(this.settings.burst, bucket.tokens + (now - bucket.updatedAt) * perMs);
    bucket.updatedAt = now;
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      throw new RateLimitedError(
        `Too many requests for this account (all its keys together): at most ${this.settings.perMinute} a minute ` +
          `(bursts of ${this.settings.burst}).`,
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
