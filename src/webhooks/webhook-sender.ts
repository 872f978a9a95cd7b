/**
 * One webhook attempt over HTTP, with SSRF protection at the moment of sending: the name is resolved here,
 * every address it resolves to must be public (unless the host is allow-listed), the connection goes to that
 * checked address (Host header and TLS SNI carry the name), the peer address of the socket actually used is
 * checked again, and redirects are never followed (a 3xx is a failed attempt).
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import {
  addressClass,
  addressRefusal,
  isAllowListed,
  normalizedHost,
  webhookUrlProblem,
  type WebhookUrlPolicy,
} from '../domain/address-safety';

/** Resolves a host name to its addresses (injectable so tests can play DNS rebinding). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export interface AttemptResult {
  success: boolean;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  /** The first 1 KiB of the response body, as text. */
  responseBody: string | null;
  error: string | null;
}

export const RESPONSE_BODY_LIMIT = 1024;

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** Thrown (and turned into a failed attempt) when a destination may not be reached. */
export class UnsafeDestinationError extends Error {}

/**
 * The address to connect to for `url`: a literal is judged as it is; a name is resolved, and every address
 * it resolves to must be public (a name with one private record is refused, whatever order DNS returns).
 */
export async function resolveSafeAddress(url: URL, policy: WebhookUrlPolicy, resolve: Resolver): Promise<string> {
  const host = normalizedHost(url);
  const allowListed = isAllowListed(url, policy);
  if (addressClass(host) !== null) {
    const refusal = allowListed ? null : addressRefusal(host);
    if (refusal) throw new UnsafeDestinationError(`refused: ${refusal}`);
    return host;
  }
  const addresses = await resolve(host);
  if (addresses.length === 0) throw new UnsafeDestinationError(`${host} did not resolve`);
  if (!allowListed) {
    for (const a of addresses) {
      const refusal = addressRefusal(a.address);
      if (refusal)
        throw new UnsafeDestinationError(
          `refused: ${host} resolves to ${refusal.replace(/^\S+ is /, 'an address that is ')} (${a.address})`,
        );
    }
  }
  return addresses[0]!.address;
}

/** POSTs one signed message; never throws (every failure is a failed attempt with its reason). */
export async function sendWebhook(input: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  policy: WebhookUrlPolicy;
  resolve: Resolver;
}): Promise<AttemptResult> {
  const attemptedAt = new Date();
  const started = performance.now();
  const done = (r: Omit<AttemptResult, 'attemptedAt' | 'latencyMs'>): AttemptResult => ({
    ...r,
    attemptedAt,
    latencyMs: Math.round(performance.now() - started),
  });
  const problem = webhookUrlProblem(input.url, input.policy);
  if (problem)
    return done({ success: false, statusCode: null, responseBody: null, error: `refused: the URL ${problem}` });
  const url = new URL(input.url);
  const allowListed = isAllowListed(url, input.policy);
  let address: string;
  try {
    address = await resolveSafeAddress(url, input.policy, input.resolve);
  } catch (err) {
    const message =
      err instanceof UnsafeDestinationError ? err.message : `DNS lookup failed: ${(err as Error).message}`;
    return done({ success: false, statusCode: null, responseBody: null, error: message });
  }
  const secure = url.protocol === 'https:';
  const hostIsName = addressClass(normalizedHost(url)) === null;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<AttemptResult, 'attemptedAt' | 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const options: https.RequestOptions = {
      host: address,
      port: url.port || (secure ? 443 : 80),
      path: url.pathname + url.search,
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      headers: { ...input.headers, host: url.host, 'content-length': Buffer.byteLength(input.body) },
      ...(secure && hostIsName ? { servername: url.hostname } : {}),
    };
    const req = (secure ? https : http).request(options, (res) => {
      // The address actually connected to (a reused keep-alive socket included) must pass too.
      const peer = res.socket?.remoteAddress;
      if (!allowListed && peer && addressRefusal(peer)) {
        req.destroy();
        finish({
          success: false,
          statusCode: null,
          responseBody: null,
          error: `refused: connected to ${addressRefusal(peer)}`,
        });
        return;
      }
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_BODY_LIMIT) {
          chunks.push(chunk);
          kept += chunk.length;
        }
      });
      res.on('error', (err) =>
        finish({ success: false, statusCode: res.statusCode ?? null, responseBody: null, error: err.message }),
      );
      res.on('close', () =>
        finish({
          success: false,
          statusCode: res.statusCode ?? null,
          responseBody: null,
          error: 'connection closed before the response ended',
        }),
      );
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
        const success = status >= 200 && status < 300;
        let error: string | null = null;
        if (status >= 300 && status < 400)
          error = `redirect to ${res.headers.location ?? '(no location)'} not followed`;
        else if (!success) error = `HTTP ${status}`;
        finish({ success, statusCode: status, responseBody: text || null, error });
      });
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${input.timeoutMs} ms`));
    }, input.timeoutMs);
    req.on('error', (err) => finish({ success: false, statusCode: null, responseBody: null, error: err.message }));
    req.end(input.body);
  });
}
