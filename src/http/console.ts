/**
 * Serves the web console built by `npm run console:build` (console/build.ts) at `/console`, and redirects
 * `/` there. Every path under /console that is not an asset answers the app's index.html (the app routes
 * itself, e.g. /console/checkout/success where Stripe sends the payer back). Files are read once and kept
 * in memory. The Content-Security-Policy allows scripts and styles from this origin only: no inline script
 * can run, so text that reached an instance name from a provider stays text.
 */
import { readFile, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the build puts the console: `<repo>/dist/web` from source, `dist/web` in the image. */
export function defaultConsoleDir(): string {
  const candidates = [path.resolve(__dirname, '..', '..', 'dist', 'web'), path.resolve(__dirname, '..', '..', 'web')];
  return candidates.find((d) => existsSync(path.join(d, 'index.html'))) ?? candidates[0]!;
}

interface Asset {
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export function serveConsole(dir = defaultConsoleDir()) {
  let loaded: Promise<{ index: Buffer; assets: Map<string, Asset> } | null> | undefined;
  const load = () =>
    (loaded ??= (async () => {
      const index = await readFile(path.join(dir, 'index.html')).catch(() => null);
      if (!index) return null;
      const assets = new Map<string, Asset>();
      for (const name of await readdir(path.join(dir, 'assets')).catch(() => [] as string[])) {
        const type = TYPES[path.extname(name)];
        if (type) assets.set(name, { body: await readFile(path.join(dir, 'assets', name)), type });
      }
      return { index, assets };
    })().then((built) => {
      if (!built) loaded = undefined; // not built yet: look again on the next request
      return built;
    }));

  // Everything but the console passes straight on, without an async frame of its own (the API's hot paths).
  return (ctx: Context, next: Next) => {
    const requested = ctx.path;
    if (requested === '/' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.state.route = '/';
      ctx.redirect('/console');
      return;
    }
    if (requested !== '/console' && !requested.startsWith('/console/')) return next();
    return serve(ctx, next);
  };

  async function serve(ctx: Context, next: Next) {
    ctx.state.route = '/console';
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = {
        error: {
          code: 'method_not_allowed',
          message: `${ctx.method} is not allowed on the console; use GET.`,
          request_id: ctx.state.requestId,
        },
      };
      return;
    }
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    const built = await load();
    if (!built) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The console is not built. Run `npm run console:build` (npm start and npm run build do it).\n';
      return;
    }
    if (ctx.path.startsWith('/console/assets/')) {
      const asset = built.assets.get(ctx.path.slice('/console/assets/'.length));
      if (!asset) return next(); // the JSON 404 of every unknown path
      ctx.type = asset.type;
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable'); // names carry a content hash
      ctx.body = asset.body;
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = built.index;
  }
}
