import type { Context, Next } from 'koa';
import { LAST_USED_RESOLUTION_MS, type ApiKeyQueries, type ApiKeyRow } from '../db/queries/api-keys';
import { hashServiceKey, looksLikeServiceKey } from '../domain/service-keys';
import { RateLimitedError, UnauthenticatedError } from '../errors';
import type { RateLimiter } from './rate-limit';
import type { SharedWindowLimits } from './shared-rate-limit';

/** Failed authentications per client address and minute, counted across API processes. */
export interface AuthFailureLimit {
  limits: SharedWindowLimits;
  perMinute: number;
}

/**
 * Bearer service-key authentication, then the key's rate limit; sets `ctx.state.accountId` and
 * `ctx.state.apiKey` (scopes, cap). Runs before the body is read. Every response of an authenticated route
 * carries `Cache-Control: no-store`.
 *
 * The key is read from the database on every request, with no per-process cache: a revoked or expired key is
 * refused at once by every API process. `last_used_at` is written at most once a minute per key.
 * A client address past its failed-authentication limit gets 429 for the rest of the minute, before any
 * lookup (guessing keys costs the guesser, not our database).
 */
export function bearerAuth(
  keys: Pick<ApiKeyQueries, 'findKeyByHash' | 'touchLastUsed'>,
  limiter?: RateLimiter,
  options: { failures?: AuthFailureLimit; onTouchError?: (err: unknown) => void } = {},
) {
  const { failures, onTouchError } = options;
  const failureKey = (ctx: Context) => `authfail:${ctx.ip}`;
  const tooManyFailures = () =>
    new RateLimitedError(
      `Too many failed authentications from this address: at most ${failures!.perMinute} a minute.`,
      failures!.limits.retryAfterSeconds(),
    );
  /**
   * Counts a failed authentication (a well-formed key we do not know: the case that costs a lookup and that
   * guessing produces); the one past the limit is answered 429 instead of 401.
   */
  const refuse = async (ctx: Context, error: UnauthenticatedError): Promise<never> => {
    if (failures && !(await failures.limits.take(failureKey(ctx), failures.perMinute))) throw tooManyFailures();
    throw error;
  };
  return async (ctx: Context, next: Next) => {
    // Account data (and refusals) must never be stored by a shared cache or the browser.
    ctx.set('Cache-Control', 'no-store');
    if (failures?.limits.isSpent(failureKey(ctx))) throw tooManyFailures();
    const header = ctx.get('authorization');
    const match = /^Bearer ([^\s]+)$/.exec(header);
    if (!header) throw new UnauthenticatedError();
    if (!match || !looksLikeServiceKey(match[1]!)) {
      throw new UnauthenticatedError('The Authorization header must be "Bearer <API_KEY>" with a service key.');
    }
    const keyHash = hashServiceKey(match[1]!);
    const key: ApiKeyRow | null = await keys.findKeyByHash(keyHash);
    if (!key) return refuse(ctx, new UnauthenticatedError('The service key is unknown or revoked.'));
    if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) {
      return refuse(
        ctx,
        new UnauthenticatedError(`The service key expired at ${new Date(key.expires_at).toISOString()}.`),
      );
    }
    // One request budget per account, whatever key it uses: minting keys buys no more requests.
    await limiter?.take(key.account_id);
    if (key.last_used_at === null || Date.now() - Date.parse(key.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      // Not awaited: the answer never waits on (or fails for) the bookkeeping of when a key was last seen.
      keys.touchLastUsed(key.id).catch((err) => onTouchError?.(err));
    }
    ctx.state.accountId = key.account_id;
    ctx.state.apiKey = key;
    await next();
  };
}
