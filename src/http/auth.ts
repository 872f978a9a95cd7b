import type { Context, Next } from 'koa';
import type { AccountQueries } from '../db/queries/accounts';
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
 * Bearer service-key authentication, then the key's rate limit; sets `ctx.state.accountId`. Runs before the
 * body is read. Every response of an authenticated route carries `Cache-Control: no-store`.
 * A client address past its failed-authentication limit gets 429 for the rest of the minute, before any
 * lookup (guessing keys costs the guesser, not our database).
 */
export function bearerAuth(accounts: Pick<AccountQueries, 'findAccountIdByKeyHash'>, limiter?: RateLimiter, failures?: AuthFailureLimit) {
  const failureKey = (ctx: Context) => `authfail:${ctx.ip}`;
  const tooManyFailures = () =>
    new RateLimitedError(`Too many failed authentications from this address: at most ${failures!.perMinute} a minute.`, failures!.limits.retryAfterSeconds());
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
    const accountId = await accounts.findAccountIdByKeyHash(keyHash);
    if (!accountId) return refuse(ctx, new UnauthenticatedError('The service key is unknown or revoked.'));
    await limiter?.take(keyHash);
    ctx.state.accountId = accountId;
    await next();
  };
}
