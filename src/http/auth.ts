import type { Context, Next } from 'koa';
import type { AccountQueries } from '../db/queries/accounts';
import { hashServiceKey, looksLikeServiceKey } from '../domain/service-keys';
import { UnauthenticatedError } from '../errors';
import type { RateLimiter } from './rate-limit';

/**
 * Bearer service-key authentication, then the key's rate limit; sets `ctx.state.accountId`. Runs before the
 * body is read. Every response of an authenticated route carries `Cache-Control: no-store`.
 */
export function bearerAuth(accounts: Pick<AccountQueries, 'findAccountIdByKeyHash'>, limiter?: RateLimiter) {
  return async (ctx: Context, next: Next) => {
    // Account data (and refusals) must never be stored by a shared cache or the browser.
    ctx.set('Cache-Control', 'no-store');
    const header = ctx.get('authorization');
    const match = /^Bearer ([^\s]+)$/.exec(header);
    if (!header) throw new UnauthenticatedError();
    if (!match || !looksLikeServiceKey(match[1]!)) {
      throw new UnauthenticatedError('The Authorization header must be "Bearer <API_KEY>" with a service key.');
    }
    const keyHash = hashServiceKey(match[1]!);
    const accountId = await accounts.findAccountIdByKeyHash(keyHash);
    if (!accountId) throw new UnauthenticatedError('The service key is unknown or revoked.');
    limiter?.take(keyHash);
    ctx.state.accountId = accountId;
    await next();
  };
}
