/**
 * HTTP edges: authentication before the body, body read timeout (408), 405 with Allow, OPTIONS the same on
 * every path, Cache-Control: no-store behind a key, client aborts not logged as failures, and an OpenAPI
 * document that lists every status an operation can answer.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/http/app';
import type { Logger } from '../../src/logger';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';

jest.setTimeout(60_000);

let t: TestContext;
let auth: { Authorization: string };
beforeAll(async () => {
  t = await createTestContext();
  ({ auth } = await t.newAccount());
});
afterAll(() => t.close());

/** A listening server for the app built from the test deps plus `overrides` (raw sockets need a real port). */
async function listen(overrides: Partial<TestContext['deps']> = {}) {
  const server = http.createServer(createApp({ ...t.deps, ...overrides }).callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => new Promise<number>((r) => server.getConnections((_err, n) => r(n))),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

interface RawExchange {
  /** The response head and body as received. */
  response: Promise<string>;
  /** Resolves when the server closes the connection. */
  closed: Promise<number>;
  socket: net.Socket;
}

/** Sends a request head and only part of its body, as a slow client would. */
function rawRequest(port: number, head: string[], partialBody: string): RawExchange {
  const socket = net.connect(port, '127.0.0.1');
  const started = Date.now();
  let data = '';
  let resolveResponse!: (s: string) => void;
  const response = new Promise<string>((r) => (resolveResponse = r));
  socket.on('data', (chunk) => {
    data += chunk.toString('utf8');
    if (/\r\n\r\n/.test(data)) resolveResponse(data);
  });
  socket.on('error', () => undefined);
  const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
  socket.write(`${head.join('\r\n')}\r\n\r\n${partialBody}`);
  return { response, closed, socket };
}

describe('authentication comes before the body', () => {
  it('an unauthenticated POST whose body never finishes gets 401 at once and the connection is closed', async () => {
    const server = await listen();
    try {
      const started = Date.now();
      const x = rawRequest(
        server.port,
        ['POST /v1/ssh-keys HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Content-Length: 5000'],
        '{"name":',
      );
      const response = await x.response;
      expect(response).toMatch(/^HTTP\/1\.1 401 /);
      expect(response).toMatch(/connection: close/i);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await x.closed).toBeLessThan(5_000);
    } finally {
      await server.close();
    }
  });

  it('a POST to an unknown path with a dangling body is 404 at once', async () => {
    const server = await listen();
    try {
      const x = rawRequest(
        server.port,
        ['POST /v1/nothing-here HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Content-Length: 5000'],
        '{',
      );
      expect(await x.response).toMatch(/^HTTP\/1\.1 404 /);
      await x.closed;
    } finally {
      await server.close();
    }
  });
});

describe('keep-alive', () => {
  it('an answered request whose body was read whole keeps its connection', async () => {
    const server = await listen();
    try {
      const body = JSON.stringify({ name: 'x' });
      const x = rawRequest(
        server.port,
        [
          'POST /v1/ssh-keys HTTP/1.1',
          'Host: x',
          `Authorization: ${auth.Authorization}`,
          'Content-Type: application/json',
          `Content-Length: ${body.length}`,
        ],
        body,
      );
      const response = await x.response;
      expect(response).toMatch(/^HTTP\/1\.1 400 /);
      expect(response).toMatch(/connection: keep-alive/i);
      x.socket.destroy();
    } finally {
      await server.close();
    }
  });
});

describe('body read timeout', () => {
  it('an authenticated body that stops arriving is 408 request_timeout after the configured time', async () => {
    const server = await listen({ bodyTimeoutMs: 500 });
    try {
      const started = Date.now();
      const x = rawRequest(
        server.port,
        [
          'POST /v1/ssh-keys HTTP/1.1',
          'Host: x',
          `Authorization: ${auth.Authorization}`,
          'Content-Type: application/json',
          'Content-Length: 5000',
        ],
        '{"name":',
      );
      const response = await x.response;
      const elapsed = Date.now() - started;
      expect(response).toMatch(/^HTTP\/1\.1 408 /);
      expect(response).toContain('"code":"request_timeout"');
      expect(elapsed).toBeGreaterThanOrEqual(450);
      expect(elapsed).toBeLessThan(10_000);
      await x.closed;
    } finally {
      await server.close();
    }
  });

  it('a body that arrives in time is read normally', async () => {
    const server = await listen({ bodyTimeoutMs: 2_000 });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/v1/settings/providers`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'lambda', api_key: 'lambda_key_abc' }),
      });
      expect(res.status).toBe(201);
    } finally {
      await server.close();
    }
  });
});

describe('405 and OPTIONS', () => {
  it.each([
    ['PATCH', '/v1/ssh-keys', 'GET, HEAD, POST, OPTIONS'],
    ['DELETE', '/v1/pricing', 'GET, HEAD, OPTIONS'],
    ['GET', '/v1/ssh-keys/sshkey_abc', 'DELETE, OPTIONS'],
    ['DELETE', '/v1/ssh-keys/sshkey_abc/default', 'PUT, OPTIONS'],
    ['GET', '/v1/compute/abc/terminate', 'POST, OPTIONS'],
    // `launch` also reads as an instance id of GET /v1/compute/{provider_instance_id} (an unknown one: 404).
    ['PUT', '/v1/compute/launch', 'GET, HEAD, POST, OPTIONS'],
    ['POST', '/v1/compute/abc', 'GET, HEAD, OPTIONS'],
  ])('%s %s → 405 method_not_allowed with Allow: %s', async (method, path, allow) => {
    const res = await t.http[method.toLowerCase() as 'get'](path).set(auth);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.body.error.code).toBe('method_not_allowed');
  });

  it.each([
    ['/v1/ssh-keys', 'GET, HEAD, POST, OPTIONS'],
    ['/v1/ssh-keys/sshkey_abc', 'DELETE, OPTIONS'],
    ['/v1/ssh-keys/sshkey_abc/default', 'PUT, OPTIONS'],
    ['/v1/pricing', 'GET, HEAD, OPTIONS'],
    ['/v1/compute/abc/stop', 'POST, OPTIONS'],
  ])('OPTIONS %s → 204 with Allow, with or without path parameters and without a key', async (path, allow) => {
    const res = await t.http.options(path);
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe(allow);
  });

  it('OPTIONS on an unknown path is 404', async () => {
    const res = await t.http.options('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('Cache-Control', () => {
  it.each([
    ['a 200', '/v1/ssh-keys', true],
    ['a 404', '/v1/ssh-keys/sshkey_nope/default', true],
    ['a 401', '/v1/billing/balance', false],
  ])('an authenticated route answers no-store (%s)', async (_label, path, withKey) => {
    const req = path.endsWith('/default') ? t.http.put(path) : t.http.get(path);
    const res = await (withKey ? req.set(auth) : req);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('public pricing keeps its public caching', async () => {
    const res = await t.http.get('/v1/pricing/history?gpu=h100-80gb-sxm&period=24h');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
  });
});

describe('client aborts', () => {
  it('a client that goes away mid-body is not logged as an unhandled error (by us or by Koa)', async () => {
    const lines: { level: string; msg: string }[] = [];
    const logger: Logger = {
      child: () => logger,
      debug: (msg) => lines.push({ level: 'debug', msg }),
      info: (msg) => lines.push({ level: 'info', msg }),
      warn: (msg) => lines.push({ level: 'warn', msg }),
      error: (msg) => lines.push({ level: 'error', msg }),
    };
    // Koa prints errors it is not given a listener for with console.error.
    const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = await listen({ logger });
    try {
      // Expect: 100-continue makes the server say when it has taken the request in; then the client hangs up.
      const x = rawRequest(
        server.port,
        [
          'POST /v1/ssh-keys HTTP/1.1',
          'Host: x',
          `Authorization: ${auth.Authorization}`,
          'Content-Type: application/json',
          'Content-Length: 5000',
          'Expect: 100-continue',
        ],
        '{"name": "half',
      );
      expect(await x.response).toMatch(/^HTTP\/1\.1 100 /);
      x.socket.end();
      await eventually(
        'the abort to be noticed and the connection gone',
        async () =>
          lines.some((l) => l.msg === 'client went away') && (await server.connections()) === 0 ? true : undefined,
        10_000,
        50,
      ).catch((e: Error) => {
        throw new Error(`${e.message} ${JSON.stringify(lines)}`);
      });
      expect(lines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
      await server.close();
    }
  });
});

describe('the OpenAPI document lists every status an operation can answer', () => {
  let doc: {
    paths: Record<
      string,
      Record<
        string,
        {
          security?: unknown[];
          parameters?: { in: string }[];
          responses: Record<string, { headers?: Record<string, unknown> }>;
        }
      >
    >;
  };
  beforeAll(async () => {
    doc = (await t.http.get('/v1/openapi.json')).body;
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op })),
    );

  it('every authenticated operation: 401 (WWW-Authenticate) and 429 (Retry-After)', () => {
    const missing = operations()
      .filter((o) => o.op.security?.length)
      .filter(
        (o) =>
          !o.op.responses['401']?.headers?.['WWW-Authenticate'] || !o.op.responses['429']?.headers?.['Retry-After'],
      )
      .map((o) => o.name);
    expect(missing).toEqual([]);
    expect(operations().filter((o) => o.op.security?.length).length).toBeGreaterThanOrEqual(15);
  });

  it('every operation: 500 and 503; every body-reading operation: 400, 408, 413, 415; path parameters: 404', () => {
    const problems: string[] = [];
    for (const o of operations()) {
      const has = (s: number) => o.op.responses[String(s)] !== undefined;
      for (const s of [500, 503]) if (!has(s)) problems.push(`${o.name} lacks ${s}`);
      if (o.method !== 'get') for (const s of [400, 408, 413, 415]) if (!has(s)) problems.push(`${o.name} lacks ${s}`);
      if (o.op.parameters?.some((p) => p.in === 'path') && !has(404)) problems.push(`${o.name} lacks 404`);
    }
    expect(problems).toEqual([]);
  });

  it('what the document promises is what the API does: 415 on a POST with another content type', async () => {
    const res = await t.http.post('/v1/ssh-keys').set(auth).set('Content-Type', 'text/plain').send('hello');
    expect(res.status).toBe(415);
    expect(doc.paths['/v1/ssh-keys']!.post!.responses['415']).toBeDefined();
  });
});
