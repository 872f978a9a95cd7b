import type { Context, Next } from 'koa';
import { LAST_USED_RESOLUTION_MS, type ApiKeyQueries, type ApiKeyRow } from '../db/queries/api-keys';
import { hashServiceKey, looksLikeServiceKey } from '../domain/service-keys';
import { UnauthenticatedError } from '../errors';
import type { RateLimiter } from './rate-limit';

/**
 * Bearer service-key authentication, then the key's rate limit; sets `ctx.state.accountId` and
 * `ctx.state.apiKey` (scopes, cap). Runs before the body is read. Every response of an authenticated route
 * carries `Cache-Control: no-store`.
 *
 * The key is read from the database on every request, with no per-process cache: a revoked or expired key is
 * refused at once by every API process. `last_used_at` is written at most once a minute per key.
 */
export function bearerAuth(keys: Pick<ApiKeyQueries, 'findKeyByHash' | 'touchLastUsed'>, limiter?: RateLimiter, onError?: (err: unknown) => void) {
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
    const key: ApiKeyRow | null = await keys.findKeyByHash(keyHash);
    if (!key) throw new UnauthenticatedError('The service key is unknown or revoked.');
    if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) {
      throw new UnauthenticatedError(`The service key expired at ${new Date(key.expires_at).toISOString()}.`);
    }
    limiter?.take(keyHash);
    if (key.last_used_at === null || Date.now() - Date.parse(key.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      // Not awaited: the answer never waits on (or fails for) the bookkeeping of when a key was last seen.
      keys.touchLastUsed(key.id).catch((err) => onError?.(err));
    }
    ctx.state.accountId = key.account_id;
    ctx.state.apiKey = key;
    await next();
  };
}
