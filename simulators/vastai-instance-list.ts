/**
 * The Vast.ai simulator's instance list (`GET /api/v1/instances`): `select_filters`, `order_by` on the id, and paging
 * by `limit` and `after_token`, with the total and per-label counts beside the page.
 */
import { type SimRequest, type SimResponse } from './kit';
import { type Account, err, type Filter, FILTERABLE, matchOp } from './vastai-model';
import { instanceV1 } from './vastai-instances';

export function listInstancesV1(acct: Account, req: SimRequest): SimResponse {
  let filters: Filter;
  let orderBy: { col: string; dir?: string }[];
  try {
    filters = JSON.parse(req.query.get('select_filters') ?? '{}') as Filter;
    orderBy = JSON.parse(req.query.get('order_by') ?? '[]') as { col: string; dir?: string }[];
  } catch {
    return err(400, 'invalid_request', 'Error in query parameters: invalid JSON');
  }
  if (!filters || typeof filters !== 'object' || Array.isArray(filters))
    return err(400, 'invalid_request', 'Error in query parameters: select_filters must be an object');
  for (const col of Object.keys(filters)) {
    if (!FILTERABLE.has(col))
      return {
        status: 400,
        body: { error: 'invalid_request', msg: `Error in query parameters: ${col} is not a valid search key` },
      };
  }
  const desc = orderBy[0]?.col === 'id' && orderBy[0]?.dir === 'desc';
  let rawLimit = Number(req.query.get('limit') ?? 25);
  if (!Number.isFinite(rawLimit) || rawLimit <= 0) rawLimit = 5;
  const limit = Math.min(25, Math.floor(rawLimit));
  let after: number | null = null;
  const token = req.query.get('after_token');
  if (token) {
    try {
      const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { values?: { id?: unknown } };
      if (typeof parsed.values?.id !== 'number') throw new Error('bad token');
      after = parsed.values.id;
    } catch {
      return { status: 400, body: { error: 'invalid_token', msg: 'Invalid after_token' } };
    }
  }
  const all = [...acct.instances.values()]
    .map((i) => ({ i, json: instanceV1(i) }))
    .filter(({ json }) =>
      Object.entries(filters).every(([col, cond]) =>
        cond && typeof cond === 'object' && !Array.isArray(cond)
          ? Object.entries(cond as Filter).every(([op, target]) => matchOp(json[col], op, target))
          : json[col] === cond,
      ),
    )
    .sort((a, b) => (desc ? b.i.id - a.i.id : a.i.id - b.i.id));
  const labelCounts: Record<string, number> = {};
  for (const { i } of all) labelCounts[i.label ?? ''] = (labelCounts[i.label ?? ''] ?? 0) + 1;
  const rest = after === null ? all : all.filter(({ i }) => (desc ? i.id < after! : i.id > after!));
  const page = rest.slice(0, limit);
  const last = page[page.length - 1];
  const nextToken =
    rest.length > limit && last ? Buffer.from(JSON.stringify({ values: { id: last.i.id } })).toString('base64') : null;
  return {
    status: 200,
    body: {
      success: true,
      instances_found: page.length,
      total_instances: all.length,
      label_counts: labelCounts,
      next_token: nextToken,
      instances: page.map(({ json }) => json),
    },
  };
}
