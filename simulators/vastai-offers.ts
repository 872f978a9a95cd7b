/**
 * Offer search on the Vast.ai simulator's marketplace (`POST /api/v0/bundles`): the query's field filters, its order
 * and limit; an interruptible (bid) search marks its offers `is_bid`.
 */
import { type SimResponse } from './kit';
import { err, type Filter, matchOp, type Offer, offerJson, VAST_SIM_OFFERS } from './vastai-model';

/** `hidden` says which offers a capacity switch takes off the market. */
export function searchOffers(body: unknown, hidden: (o: Offer) => boolean): SimResponse {
  if (body === undefined) body = {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) return err(400, 'invalid_request', 'Invalid json body');
  const q = body as Record<string, unknown>;
  const type = q.type ?? 'on-demand';
  if (typeof type !== 'string' || !['on-demand', 'ondemand', 'bid', 'interruptible', 'reserved'].includes(type)) {
    return err(400, 'invalid_request', `invalid type ${String(type)}`);
  }
  const bid = type === 'bid' || type === 'interruptible';
  const reserved = new Set(['type', 'order', 'limit', 'allocated_storage', 'disable_bundling', 'show_incompatible']);
  let offers = VAST_SIM_OFFERS.filter((o) => !hidden(o)).map((o) => ({
    o,
    json: offerJson(o),
  }));
  for (const [field, cond] of Object.entries(q)) {
    if (reserved.has(field) || !cond || typeof cond !== 'object' || Array.isArray(cond)) continue;
    offers = offers.filter(({ json }) =>
      Object.entries(cond as Filter).every(([op, target]) => {
        let value: unknown = json[field];
        let t = target;
        if (field === 'verified') value = json.verification === 'verified';
        if (field === 'gpu_name') {
          const norm = (x: unknown) => (typeof x === 'string' ? x.replace(/_/g, ' ') : x);
          t = Array.isArray(target) ? target.map(norm) : norm(target);
        }
        if (field === 'geolocation' && typeof value === 'string') value = value.split(',').pop()!.trim();
        if (!(field in json) && field !== 'verified') return true;
        return matchOp(value, op, t);
      }),
    );
  }
  const order = Array.isArray(q.order) ? (q.order as unknown[][]) : [['score', 'desc']];
  offers.sort((a, b) => {
    for (const entry of order) {
      const [col, dir] = entry as [string, string?];
      const av = a.json[col];
      const bv = b.json[col];
      if (typeof av === 'number' && typeof bv === 'number' && av !== bv) return dir === 'desc' ? bv - av : av - bv;
    }
    return a.o.id - b.o.id;
  });
  const limit = typeof q.limit === 'number' && q.limit > 0 ? Math.floor(q.limit) : 64;
  const out = offers.slice(0, limit).map(({ json }) => (bid ? { ...json, is_bid: true } : json));
  return { status: 200, body: { offers: out } };
}
