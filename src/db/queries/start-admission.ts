/**
 * Admission of a stopped instance's start (RunPod's stop and start): the launch's balance rule, live-instance
 * limit and key caps (src/db/queries/admission.ts), decided under the same account lock, with the instance's
 * own price and a reservation that holds its place until the pod is seen running.
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { decideAdmission } from '../../domain/admission';
import { fitsKeyCap, keyCapMessage, type KeyCapStanding } from '../../domain/key-cap';
import { limitReachedMessage } from '../../domain/limits';
import { BURNING_STATUSES, readSpendFigures } from './admission';
import { readFamilySpend } from './api-keys';
import type { Pool } from '../pool';
import { sql } from '../sql';

/**
 * The first capped key of `keyId`'s line (the key itself, then the keys above it, nearest first) whose family
 * spend cannot take `hourlyMicros` more, as `admit_launch` decides for a launch; null when every cap fits.
 */
async function keyCapRefusal(
  conn: CommonQueryMethods,
  accountId: string,
  keyId: string,
  hourlyMicros: number | null,
): Promise<KeyCapStanding | null> {
  const caps = await conn.any(sql.type(
    z.object({
      id: z.string(),
      name: z.string(),
      key_prefix: z.string(),
      limit: z.number(),
      period: z.enum(['day', 'month']),
    }),
  )`
    SELECT k.id, k.name, k.key_prefix, k.spend_limit_micros AS limit, k.spend_limit_period AS period
    FROM service_keys k, service_keys own
    WHERE own.id = ${keyId} AND own.account_id = ${accountId} AND k.account_id = ${accountId}
      AND k.spend_limit_micros IS NOT NULL AND (k.id = own.id OR k.id = ANY(own.ancestor_ids))
    ORDER BY cardinality(k.ancestor_ids) DESC`);
  const spend = await readFamilySpend(
    conn,
    accountId,
    caps.map((c) => c.id),
  );
  for (const c of caps) {
    const s = spend.get(c.id) ?? { chargedMicros: 0, liveHourlyMicros: 0 };
    const standing: KeyCapStanding = {
      name: c.name,
      prefix: c.key_prefix,
      limitMicros: c.limit,
      period: c.period,
      ...s,
      ...(c.id === keyId ? {} : { family: true }),
    };
    if (!fitsKeyCap(standing, hourlyMicros)) return standing;
  }
  return null;
}

/**
 * How long an admitted start holds its place while the pod is not seen running: long enough for RunPod to start
 * it; a start that never gets there gives its place back when this lapses.
 */
export const START_RESERVATION_MS = 10 * 60_000;

/**
 * Admission of a stopped instance's start: the launch's balance rule and live-instance limit, decided under the
 * account's balance lock with the instance's own price (the provider's, else the launch quote), and, when
 * admitted, its reservation: the row counts in the burn at that price and in the live count from now
 * (`start_reserved_until`, {@link START_RESERVATION_MS}) until it is seen running, as a launch's row does. Two
 * starts, or a start and a launch, cannot pass on the same money. A start asked again while its reservation
 * holds is admitted on it.
 */
export async function admitStart(
  pool: Pool,
  start: {
    accountId: string;
    instanceId: string;
    windowMs: number;
    maxLive?: number;
    /** The API key asking: the start must fit its cap and every cap above it, as a launch by it would. */
    apiKeyId?: string | null;
  },
): Promise<
  | { outcome: 'admitted' }
  | { outcome: 'refused'; message: string }
  | { outcome: 'limited'; message: string; max: number }
  | { outcome: 'key_refused'; message: string; keyCap: KeyCapStanding }
> {
  return pool.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`
      INSERT INTO account_balances (account_id) VALUES (${start.accountId}) ON CONFLICT (account_id) DO NOTHING`);
    await tx.query(
      sql.typeAlias('void')`SELECT FROM account_balances WHERE account_id = ${start.accountId} FOR UPDATE`,
    );
    const own = await tx.one(
      sql.type(z.object({ price: z.number().nullable(), reserved: z.boolean().nullable(), live: z.number() }))`
      SELECT (SELECT coalesce(price_per_hour_micros, quote_per_hour_micros) FROM instances
               WHERE id = ${start.instanceId} AND account_id = ${start.accountId}) AS price,
        (SELECT start_reserved_until > now() FROM instances
           WHERE id = ${start.instanceId} AND account_id = ${start.accountId}) AS reserved,
        (SELECT count(*)::int4 FROM instances WHERE account_id = ${start.accountId}
           AND (status = ANY(${sql.array([...BURNING_STATUSES], 'text')})
                OR (status = 'stopped' AND start_reserved_until > now()))) AS live`,
    );
    if (own.reserved) return { outcome: 'admitted' };
    if (start.maxLive !== undefined && own.live >= start.maxLive) {
      return { outcome: 'limited', message: limitReachedMessage('live_instances', start.maxLive), max: start.maxLive };
    }
    const spend = await readSpendFigures(tx, start.accountId);
    // Its own storage still counts: it burns until the pod is seen running.
    const verdict = decideAdmission(spend, own.price, start.windowMs);
    if (!verdict.admitted) return { outcome: 'refused', message: verdict.message! };
    const capped = start.apiKeyId ? await keyCapRefusal(tx, start.accountId, start.apiKeyId, own.price) : null;
    if (capped) return { outcome: 'key_refused', message: keyCapMessage(capped, own.price), keyCap: capped };
    await tx.query(sql.typeAlias('void')`
      UPDATE instances SET start_reserved_until = now() + make_interval(secs => ${START_RESERVATION_MS / 1000})
      WHERE id = ${start.instanceId} AND account_id = ${start.accountId} AND status = 'stopped'`);
    return { outcome: 'admitted' };
  });
}
