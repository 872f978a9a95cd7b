/**
 * The operations listener: what operators and their tools need, on its own host and port (OPS_HOST,
 * OPS_PORT), never on the API port. Serves
 * - `GET /metrics`: Prometheus text of this process (cheap in-process counters only, no table scans);
 * - `POST /codec/encode`, `POST /codec/decode`: Temporal's codec-server convention
 *   (`{payloads: [{metadata: {k: base64}, data: base64}]}` in and out), so the Temporal UI and
 *   `temporal workflow show --codec-endpoint` show our encrypted payloads decoded, with CORS for the UI's
 *   origins (OPS_CORS_ORIGINS);
 * - `GET /healthz`, `GET /readyz` (ready or not ready, no internals).
 * With a token (OPS_TOKEN) every route but the CORS preflight requires `Authorization: Bearer <token>`
 * (401 otherwise); without one the process binds the listener to loopback only ({@link opsBindHost}).
 */
import Koa, { type Context } from 'koa';
import type { PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../errors';
import type { Logger } from '../logger';
import { payloadFromJson, payloadToJson } from '../workflow-clients/payload-codec';
import { readJsonBody } from './body';
import { edge, logApplicationError } from './edge';
import { bearerMatches } from './ops-token';
import { zodToValidationError } from './validation';

export interface OpsDeps {
  logger: Logger;
  /** OPS_TOKEN: when set, required as a bearer token on every route. */
  token?: string;
  /** The payload codec of this deployment (`new PayloadEncryptionCodec(vault)`). */
  codec: PayloadCodec;
  /** Origins allowed to call the codec endpoints from a browser (the Temporal UI's), exact match. */
  corsOrigins: readonly string[];
  metrics: () => Promise<{ contentType: string; body: string }>;
  /** True when the process can serve (its database and Temporal answer); the reasons go to the log. */
  ready: () => Promise<boolean>;
}

/** Codec requests carry whole histories' payloads: Temporal allows 2 MB per payload, the UI batches them. */
const CODEC_BODY_LIMIT = 16 * 1024 * 1024;

const CodecBody = z.object({
  payloads: z.array(
    z.object({ metadata: z.record(z.string(), z.string()).optional(), data: z.string().optional() }).strict(),
  ),
});

/** Where the listener binds: OPS_HOST, unless there is no token, then loopback whatever was asked. */
export function opsBindHost(host: string, token: string | undefined): string {
  if (token) return host;
  return isLoopback(host) ? host : '127.0.0.1';
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function createOpsApp(deps: OpsDeps): Koa {
  const app = new Koa();
  const cors = (ctx: Context) => {
    const origin = ctx.get('origin');
    if (!origin || !deps.corsOrigins.includes(origin)) return;
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Allow-Credentials', 'true');
    ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Namespace');
    ctx.set('Vary', 'Origin');
  };
  const codecRoute = (direction: 'encode' | 'decode') => async (ctx: Context) => {
    await readJsonBody(ctx, { limitBytes: CODEC_BODY_LIMIT });
    const parsed = CodecBody.safeParse(ctx.state.body ?? {});
    if (!parsed.success) throw zodToValidationError(parsed.error, 'body');
    let payloads;
    try {
      payloads = parsed.data.payloads.map(payloadFromJson);
      payloads = direction === 'encode' ? await deps.codec.encode(payloads) : await deps.codec.decode(payloads);
    } catch {
      // A tampered payload or one sealed with a key this deployment no longer has: say so, without detail.
      throw new ValidationError(
        'A payload could not be decoded (tampered, or sealed with a key not configured here).',
        [{ path: 'body.payloads', message: 'cannot be decoded with the configured keys' }],
      );
    }
    ctx.body = { payloads: payloads.map(payloadToJson) };
  };
  const routes: Record<string, (ctx: Context) => Promise<void> | void> = {
    'GET /metrics': async (ctx) => {
      const { contentType, body } = await deps.metrics();
      ctx.type = contentType;
      ctx.body = body;
    },
    'POST /codec/decode': codecRoute('decode'),
    'POST /codec/encode': codecRoute('encode'),
    'GET /healthz': (ctx) => {
      ctx.body = { status: 'ok' };
    },
    'GET /readyz': async (ctx) => {
      const ready = await deps.ready();
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ready' : 'not_ready' };
    },
  };

  app.on('error', logApplicationError(deps.logger));
  app.use(
    edge(deps.logger, async (ctx) => {
      if (ctx.path.startsWith('/codec/')) cors(ctx);
      // The browser's preflight carries no credentials: answered for allowed origins only, and reveals nothing.
      if (ctx.method === 'OPTIONS' && ctx.path.startsWith('/codec/')) {
        ctx.status = 204;
        return;
      }
      const route = routes[`${ctx.method} ${ctx.path}`];
      if (!route) throw new NotFoundError(`No route matches ${ctx.method} ${ctx.path}.`);
      ctx.state.route = ctx.path;
      if (deps.token && !bearerMatches(ctx.get('authorization'), deps.token)) {
        throw new UnauthenticatedError('This operations endpoint requires "Authorization: Bearer <OPS_TOKEN>".');
      }
      await route(ctx);
    }),
  );
  return app;
}
