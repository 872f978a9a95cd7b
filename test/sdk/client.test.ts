/**
 * The SDK against the running service: a launch whose first answer is lost to a 503 is retried after
 * Retry-After with the same Idempotency-Key and yields one instance; a 429 is waited out; paging walks every
 * page; a refusal is a typed error.
 */
import http from 'node:http';
import { createGpuoClient, InsufficientBalanceError, ForbiddenError, type GpuoClient } from '../../sdk/src';
import { startRunningService, type RunningService } from '../helpers/running-service';

jest.setTimeout(120_000);

let svc: RunningService;
beforeAll(async () => {
  svc = await startRunningService();
});
afterAll(() => svc.close());

/**
 * A proxy in front of the API that can lose answers: `fail(method, path, status)` makes the next matching
 * request's answer that status (with Retry-After: 1), after the API handled it (`afterHandling`) or instead.
 */
async function faultyProxy(target: string) {
  const faults: { method: string; path: string; status: number; afterHandling: boolean }[] = [];
  const seen: { method: string; path: string; idempotencyKey?: string; answered: number }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = req.url!.split('?')[0]!;
      const i = faults.findIndex((f) => f.method === req.method && f.path === path);
      const fault = i >= 0 ? faults.splice(i, 1)[0] : undefined;
      let status: number;
      let body: string;
      let headers: Record<string, string> = { 'content-type': 'application/json' };
      if (!fault || fault.afterHandling) {
        const upstream = await fetch(target + req.url, {
          method: req.method,
          headers: Object.fromEntries(
            Object.entries(req.headers)
              .filter(([k]) => !['host', 'content-length', 'connection'].includes(k))
              .map(([k, v]) => [k, String(v)]),
          ),
          body: ['GET', 'HEAD'].includes(req.method!) ? undefined : Buffer.concat(chunks),
        });
        status = upstream.status;
        body = await upstream.text();
        headers = Object.fromEntries(
          [...upstream.headers].filter(
            ([k]) => !['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(k),
          ),
        );
      }
      if (fault) {
        status = fault.status;
        headers = { 'content-type': 'application/json', 'retry-after': '1' };
        const code = fault.status === 429 ? 'rate_limited' : 'service_unavailable';
        body = JSON.stringify({ error: { code, message: 'injected by the test proxy', request_id: 'req_proxy' } });
      }
      seen.push({
        method: req.method!,
        path,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        answered: status!,
      });
      res.writeHead(status!, headers).end(body!);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    fail: (method: string, path: string, status: number, afterHandling = false) =>
      faults.push({ method, path, status, afterHandling }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

it('launch: an answer lost to a 503 is retried after Retry-After, same Idempotency-Key: one instance', async () => {
  const a = await svc.t.connectedAccount('runpod');
  const proxy = await faultyProxy(svc.baseUrl);
  try {
    const sdk: GpuoClient = createGpuoClient({ baseUrl: proxy.url, apiKey: a.apiKey });
    proxy.fail('POST', '/v1/compute/launch', 503, true);
    const started = Date.now();
    const instance = await sdk.launch({ provider: 'runpod', gpu_type: 'rtx-a6000', gpu_count: 1, spot: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // Retry-After: 1 was honoured
    const launches = proxy.seen.filter((s) => s.path === '/v1/compute/launch');
    expect(launches.map((s) => s.answered)).toEqual([503, 201]);
    expect(launches[0]!.idempotencyKey).toMatch(/^sdk_/);
    expect(launches[1]!.idempotencyKey).toBe(launches[0]!.idempotencyKey);
    expect(svc.t.sims.runpod.control.instances(a.simKey).map((i) => (i as { id: string }).id)).toEqual([instance.id]);

    // A 429 is waited out too.
    proxy.fail('GET', '/v1/compute', 429);
    const listed = await sdk.instances();
    expect(listed.data.map((i) => i.id)).toContain(instance.id);
    expect(proxy.seen.filter((s) => s.path === '/v1/compute').map((s) => s.answered)).toEqual([429, 200]);
  } finally {
    await proxy.close();
  }
});

it('paging: every event, each once, across pages of 2', async () => {
  const a = await svc.t.newAccount();
  const sdk = createGpuoClient({ baseUrl: svc.baseUrl, apiKey: a.apiKey });
  for (let i = 0; i < 5; i++) await sdk.createApiKey({ name: `k${i}`, scopes: ['read'] });
  const ids: string[] = [];
  for await (const e of sdk.events({ limit: 2 })) ids.push(e.id as string);
  expect(ids).toHaveLength(5);
  expect(new Set(ids).size).toBe(5);
});

it('typed refusals: 402 InsufficientBalanceError with the numbers, 403 ForbiddenError naming the scope', async () => {
  const poor = await svc.t.newAccount('poor', { credit: 0.1 });
  const sdk = createGpuoClient({ baseUrl: svc.baseUrl, apiKey: poor.apiKey });
  await svc.t.http
    .post('/v1/settings/providers')
    .set(poor.auth)
    .send({ provider: 'runpod', api_key: svc.t.sims.runpod.createKey() })
    .expect(201);
  const refused = await sdk
    .launch({ provider: 'runpod', gpu_type: 'rtx-a6000', gpu_count: 1, spot: false })
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(InsufficientBalanceError);
  expect(refused).toMatchObject({
    status: 402,
    code: 'insufficient_balance',
    message: expect.stringContaining('The balance is $0.10'),
  });
  const ro = await sdk.createApiKey({ name: 'ro', scopes: ['read'] });
  const readOnly = createGpuoClient({ baseUrl: svc.baseUrl, apiKey: ro.api_key });
  const forbidden = await readOnly.terminate('anything').catch((e: unknown) => e);
  expect(forbidden).toBeInstanceOf(ForbiddenError);
  expect((forbidden as ForbiddenError).message).toContain('"compute:write"');
});
