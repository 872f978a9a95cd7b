/**
 * The API reference at `/docs`: RapiDoc (a web component, served from its npm package: no CDN, works on an
 * offline machine) rendering the served OpenAPI document, to which each operation's request samples in curl,
 * TypeScript and Python are added (`x-codeSamples`). Why RapiDoc and what the page weighs: docs/api.md.
 *
 * Nothing on the page runs inline: the HTML loads one script from this origin, which reads its settings from
 * the element's attributes. Its styles need two exceptions to the console's policy, both for styles only:
 * RapiDoc writes `style="…"` attributes, and its theme is one `<style>` block, allowed by its hash.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type Router from '@koa/router';
import type { Context } from 'koa';

/**
 * The hash of RapiDoc's theme `<style>` block as this page configures it. A RapiDoc upgrade that changes the
 * block leaves the page unstyled with a CSP error naming the new hash; test/docs/reference.browser.test.ts
 * fails on it.
 */
const RAPIDOC_THEME_HASH = "'sha256-NolJvpLT1T5e8QBkz4jdiH1sL721JFKC74rleMr1A7w='";

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' ${RAPIDOC_THEME_HASH}`,
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data:",
  // Try-it requests go to this API only.
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Operation {
  summary?: string;
  security?: unknown[];
  parameters?: { in: string; name: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  'x-codeSamples'?: CodeSample[];
}
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  format?: string;
  minimum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}
interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Values a reader recognises, for fields whose schema alone would give a placeholder. */
const EXAMPLE_VALUES: Record<string, unknown> = {
  gpu_type: 'h100-80gb-sxm',
  gpu: 'h100-80gb-sxm',
  name: 'training-run',
  public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI… you@laptop',
  api_key: 'YOUR_PROVIDER_API_KEY',
  docker_image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime',
  template: 'pytorch',
  cron: '0 9 * * 1-5',
  url: 'https://example.com/hooks/gpuo',
  amount: 25,
};

/** A small valid value for a schema: its required fields, enums' first value, the hints above. */
function exampleOf(schema: Schema | undefined, doc: Document, field?: string, depth = 0): unknown {
  if (!schema || depth > 8) return field && field in EXAMPLE_VALUES ? EXAMPLE_VALUES[field] : 'string';
  if (schema.$ref) return exampleOf(doc.components?.schemas?.[schema.$ref.split('/').pop()!], doc, field, depth + 1);
  const branch = schema.oneOf?.[0] ?? schema.anyOf?.[0] ?? schema.allOf?.[0];
  if (branch) return exampleOf(branch, doc, field, depth + 1);
  if (schema.enum?.length) return schema.enum[0];
  if (field && field in EXAMPLE_VALUES) return EXAMPLE_VALUES[field];
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      // Its required fields; an update with none required shows its first field.
      const keys = schema.required?.length ? schema.required : Object.keys(schema.properties ?? {}).slice(0, 1);
      const out: Record<string, unknown> = {};
      for (const key of keys) out[key] = exampleOf(schema.properties?.[key], doc, key, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () =>
        exampleOf(schema.items, doc, undefined, depth + 1),
      );
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    default:
      return schema.format === 'date-time' ? '2025-01-01T00:00:00Z' : 'string';
  }
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function toPython(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (Array.isArray(value)) return `[${value.map(toPython).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${toPython(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** curl, TypeScript (the SDK's typed client) and Python (httpx) for one operation. */
export function codeSamples(method: string, route: string, op: Operation, doc: Document): CodeSample[] {
  const authenticated = (op.security?.length ?? 0) > 0;
  const pathParams: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  for (const p of op.parameters ?? []) {
    if (p.in === 'path') pathParams[p.name] = p.schema?.enum?.[0] ?? p.name.toUpperCase();
    else if (p.in === 'query' && p.required) query[p.name] = exampleOf(p.schema, doc, p.name);
  }
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const body = bodySchema ? exampleOf(bodySchema, doc) : undefined;
  // A route that declares a body wants one, even `{}`.
  const hasBody = body !== undefined;
  const concretePath = route.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(pathParams[name])));
  const queryString = Object.keys(query).length
    ? `?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`
    : '';

  const curl = [
    `curl${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} "$GPUO_API_URL${concretePath}${queryString}"`,
  ];
  if (authenticated) curl.push(`-H "Authorization: Bearer $GPUO_API_KEY"`);
  if (hasBody) curl.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(body))}`);

  const options: string[] = [];
  const params: string[] = [];
  if (Object.keys(pathParams).length) params.push(`path: ${JSON.stringify(pathParams)}`);
  if (Object.keys(query).length) params.push(`query: ${JSON.stringify(query)}`);
  if (params.length) options.push(`params: { ${params.join(', ')} }`);
  if (hasBody) options.push(`body: ${JSON.stringify(body)}`);
  const typescript = [
    `import { createGpuoClient } from '@gpuo/sdk';`,
    ``,
    `const gpuo = createGpuoClient({ baseUrl: process.env.GPUO_API_URL!, apiKey: process.env.GPUO_API_KEY! });`,
    `const { data, error } = await gpuo.raw.${method.toUpperCase()}('${route}'` +
      `${options.length ? `, { ${options.join(', ')} }` : ''});`,
    `console.log(error ?? data);`,
  ].join('\n');

  const args = [JSON.stringify(`${concretePath}`)];
  if (Object.keys(query).length) args.push(`params=${toPython(query)}`);
  if (hasBody) args.push(`json=${toPython(body)}`);
  const python = [
    `import os`,
    `import httpx`,
    ``,
    authenticated
      ? `gpuo = httpx.Client(base_url=os.environ["GPUO_API_URL"], ` +
        `headers={"Authorization": f"Bearer {os.environ['GPUO_API_KEY']}"})`
      : `gpuo = httpx.Client(base_url=os.environ["GPUO_API_URL"])`,
    `response = gpuo.${method}(${args.join(', ')})`,
    `response.raise_for_status()`,
    `print(response.json())`,
  ].join('\n');

  return [
    { lang: 'shell', label: 'curl', source: curl.join(' \\\n  ') },
    { lang: 'typescript', label: 'TypeScript', source: typescript },
    { lang: 'python', label: 'Python', source: python },
  ];
}

/** The served document with request samples on every operation; the document itself is left as it is. */
export function withCodeSamples<T extends object>(served: T): T {
  const doc = structuredClone(served) as T & Document;
  for (const [route, ops] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = ops[method];
      if (op) op['x-codeSamples'] = codeSamples(method, route, op, doc);
    }
  }
  return doc;
}

/**
 * RapiDoc's bundle: from its package (a dev dependency: only this one file of it is used) when it is
 * installed, else the copy `npm run build` puts in dist/reference for the image.
 */
function findBundle(): string | undefined {
  const candidates = [path.resolve(__dirname, '..', '..', 'reference', 'rapidoc-min.js')];
  try {
    candidates.unshift(path.join(path.dirname(require.resolve('rapidoc/package.json')), 'dist', 'rapidoc-min.js'));
  } catch {
    // not installed (the production image)
  }
  return candidates.find((file) => existsSync(file));
}

const page = (scriptPath: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GPU Orchestrator API reference</title>
<link rel="icon" href="data:,">
<script type="module" src="${scriptPath}"></script>
</head>
<body style="margin:0">
<rapi-doc spec-url="/docs/openapi.json" render-style="focused" show-header="false" allow-spec-url-load="false"
  allow-spec-file-load="false" load-fonts="false" allow-try="true" persist-auth="false"
  style="height:100vh;width:100%">
<noscript>The reference needs JavaScript; the OpenAPI document itself is at
  <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
</rapi-doc>
</body>
</html>
`;

interface Served {
  body: Buffer;
  gzip: Buffer;
}

function compressed(body: Buffer | string): Served {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return { body: bytes, gzip: gzipSync(bytes, { level: 9 }) };
}

function send(ctx: Context, served: Served, type: string, cacheControl: string): void {
  ctx.set('Content-Security-Policy', DOCS_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', cacheControl);
  ctx.set('Vary', 'Accept-Encoding');
  ctx.type = type;
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = served.gzip;
  } else ctx.body = served.body;
}

/**
 * Serves the page, its document and RapiDoc's bundle, each read and compressed once, on first use. Public,
 * like the document: it carries the served OpenAPI document and fixed samples that read the key from the
 * environment.
 */
export function serveDocs(router: Router, document: () => object): void {
  let assets: { page: Served; script: Served; scriptName: string } | null | undefined;
  let spec: Served | undefined;
  const load = () => {
    if (assets) return assets;
    const bundle = findBundle();
    if (!bundle) return null;
    const script = readFileSync(bundle);
    // The name carries the content's hash, so the bundle is cached for good.
    const scriptName = `rapidoc-${createHash('sha256').update(script).digest('hex').slice(0, 12)}.min.js`;
    return (assets = { page: compressed(page(`/docs/assets/${scriptName}`)), script: compressed(script), scriptName });
  };
  router.get('/docs', (ctx) => {
    const loaded = load();
    if (!loaded) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body =
        'The reference page needs RapiDoc: run `npm ci` (or `npm run build` for dist/); ' +
        'the document is at /v1/openapi.json.\n';
      return;
    }
    send(ctx, loaded.page, 'text/html; charset=utf-8', 'no-cache');
  });
  router.get('/docs/openapi.json', (ctx) =>
    send(ctx, (spec ??= compressed(JSON.stringify(withCodeSamples(document())))), 'application/json', 'no-cache'),
  );
  router.get('/docs/assets/:file', (ctx, next) => {
    const loaded = load();
    if (!loaded || ctx.params.file !== loaded.scriptName) return next(); // the JSON 404 of every unknown path
    send(ctx, loaded.script, 'application/javascript; charset=utf-8', 'public, max-age=31536000, immutable');
  });
}
