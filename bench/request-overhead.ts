/**
 * `node --import tsx bench/request-overhead.ts`: CPU cost of what every API request does for operability
 * (issue 13): two clock reads, the HTTP series update and the request log call (silent logger, as in
 * bench:pricing), the same statements as src/http/edge.ts, in a tight loop. Compare with bench:pricing's
 * whole-request cost (about 50 µs of CPU per GET /v1/pricing on the 2-core machine).
 */
import { silentLogger } from '../src/logger';
import { recordHttpRequest } from '../src/metrics';

const ctx = {
  method: 'GET',
  status: 200,
  path: '/v1/pricing',
  state: { requestId: 'req_x', route: '/v1/pricing' } as Record<string, unknown>,
};

function perRequest(): void {
  const started = performance.now();
  const ms = performance.now() - started;
  const route = (ctx.state.route as string | undefined) ?? 'unmatched';
  recordHttpRequest(ctx.method, route, ctx.status, ms / 1000);
  silentLogger.info('request', {
    request_id: ctx.state.requestId,
    account_id: ctx.state.accountId ?? null,
    method: ctx.method,
    route,
    path: ctx.path,
    status: ctx.status,
    ms: Math.round(ms * 100) / 100,
  });
}

const N = 2_000_000;
for (let round = 1; round <= 3; round++) {
  const before = process.cpuUsage();
  for (let i = 0; i < N; i++) perRequest();
  const used = process.cpuUsage(before);
  process.stdout.write(
    `round ${round}: ${(((used.user + used.system) * 1000) / N).toFixed(0)} ns of CPU per request\n`,
  );
}
