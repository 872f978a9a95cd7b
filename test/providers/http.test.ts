import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLambdaAdapter } from '../../src/providers/lambda';
import { createRunpodAdapter } from '../../src/providers/runpod';
import { createVastaiAdapter } from '../../src/providers/vastai';
import { parseRetryAfterMs } from '../../src/providers/http';
import { capturingLogger, expectProviderError } from './support';

/** A misbehaving provider that echoes the Authorization header back in its error text. */
let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    const echoed = `credentials ${auth} rejected for ${auth.replace(/^Bearer /, '')}`;
    // RunPod paths get a 400, Vast a 418 (both provider_error), Lambda a 500 (transient).
    const url = req.url ?? '';
    const status = url.startsWith('/v2/') ? 400 : url.startsWith('/api/v0/') ? 418 : 500;
    const body = url.startsWith('/api/v1/')
      ? { error: { code: 'global/unknown', message: echoed } }
      : { title: 'Error', status, detail: echoed, success: false, error: 'x', msg: echoed };
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('shared provider HTTP handling', () => {
  test('a key echoed back by a provider is redacted from errors and logs', async () => {
    const lines: string[] = [];
    const logger = capturingLogger(lines);
    const secret = 'rpa_SECRETSECRETSECRETSECRETSECRETSECRET12';
    const runpod = createRunpodAdapter({ baseUrl: `${origin}/v2`, timeoutMs: 2_000, logger });
    const vast = createVastaiAdapter({ baseUrl: origin, timeoutMs: 2_000, logger });
    const lambda = createLambdaAdapter({ baseUrl: `${origin}/api/v1`, timeoutMs: 2_000, logger });

    const errs = [
      await expectProviderError(runpod.listInstances(secret), 'provider_error'),
      await expectProviderError(vast.verifyKey(secret), 'provider_error'),
      await expectProviderError(lambda.listOffers(secret), 'transient'),
    ];
    for (const e of errs) {
      expect(e.message).toContain('[redacted]');
      expect(e.message).not.toContain(secret);
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(secret);
  });

  test('Retry-After parsing: seconds, HTTP dates, garbage', () => {
    expect(parseRetryAfterMs('12')).toBe(12_000);
    expect(parseRetryAfterMs('0.5')).toBe(500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('soon')).toBeUndefined();
    expect(parseRetryAfterMs(null)).toBeUndefined();
  });
});
