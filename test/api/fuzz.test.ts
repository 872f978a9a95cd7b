/**
 * Property-based fuzzing of EVERY operation in the served OpenAPI document, driven by that document: bodies,
 * query strings and path parameters drawn from each operation's own schemas (valid values, hostile strings,
 * wrong types, unknown fields, deep nesting, odd path ids), sent through the real app with the provider
 * simulators, real Postgres and a real Temporal worker. Every answer must be below 500, have a status the
 * document lists for that operation, and match the schema the document declares for that status.
 *
 * Bounded: FUZZ_RUNS runs per operation (default 25), three operations at a time. The seed is in each test's name;
 * reproduce a failure with FUZZ_SEED=<seed> npx jest test/api/fuzz.test.ts.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { PROVIDERS } from '../../src/providers/types';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, type TestContext } from '../helpers/context';
import { startTestStripe } from '../helpers/stripe';
import { hostileFor, HOSTILE_STRINGS, nested, validFor, type JsonSchema } from '../helpers/json-schema-arbitrary';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { content?: { 'application/json'?: { schema: object } } }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

let t: TestContext;
let temporal: TemporalTestEnv;
let stripe: Awaited<ReturnType<typeof startTestStripe>>;
let http: ReturnType<typeof request>;
let auth: { Authorization: string };
let doc: OpenApiDocument;
const known = { sshKeyIds: [] as string[], instanceIds: [] as string[] };
const simKeys: Record<string, string> = {};

beforeAll(async () => {
  // Stripe configured (a real stripe-mock), so credit top-ups and the Stripe webhook are fuzzed as they run.
  stripe = await startTestStripe();
  t = await createTestContext({
    simulators: true,
    launchTiming: { pollIntervalMs: 250, meterIntervalMs: 1_000 },
    stripe: stripe.settings,
  });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(
    t.workerDeps({
      pricingKeys: { runpod: t.sims.runpod.createKey(), lambda: t.sims.lambda.createKey() },
    }),
    t.deps.temporal.taskQueue,
  );
  // Prices in the API's cache, so pricing and recommendations answer with data rather than 503.
  await temporal.env.client.workflow.execute('pricingRefresh', {
    taskQueue: t.deps.temporal.taskQueue,
    workflowId: `fuzz-pricing-${SEED}-${Date.now()}`,
  });
  await t.deps.pricing.reload();
  if (!t.deps.pricing.latest) throw new Error('setup: no pricing snapshot after a refresh');
  for (const p of PROVIDERS) t.sims[p].control.setBootDelay(100);
  // The rate limit is not what is fuzzed here (test/api/rate-limit.test.ts covers it).
  http = request(
    createApp({
      ...t.deps,
      rateLimit: {
        burst: 1_000_000,
        perMinute: 1_000_000,
        unauthenticatedPerMinute: 1_000_000,
        authFailuresPerMinute: 1_000_000,
      },
    }).callback(),
  );
  ({ auth } = await t.newAccount('fuzz'));
  for (const p of PROVIDERS) simKeys[p] = t.sims[p].createKey();
  await connectProviders();
  for (const name of ['laptop', 'desktop']) {
    known.sshKeyIds.push(
      (await http.post('/v1/ssh-keys').set(auth).send({ name, public_key: ed25519Key() }).expect(201)).body.id,
    );
  }
  for (const [provider, body] of [
    ['runpod', { provider: 'runpod', gpu_type: 'rtx-a6000' }],
    ['vastai', { provider: 'vastai', gpu_type: 'rtx-a6000' }],
    ['lambda', { provider: 'lambda', gpu_type: 'h100-80gb-sxm', region: 'us-east-1' }],
  ] as const) {
    const res = await http.post('/v1/compute/launch').set(auth).send(body);
    if (res.status !== 201) throw new Error(`setup launch on ${provider}: ${res.status} ${JSON.stringify(res.body)}`);
    known.instanceIds.push(res.body.id);
  }
  doc = (await http.get('/v1/openapi.json').expect(200)).body;
});

afterAll(async () => {
  await temporal?.close();
  await t?.close();
  await stripe?.mock.stop();
});

/** Connects the three simulator keys (again). */
async function connectProviders() {
  for (const p of PROVIDERS)
    await http.post('/v1/settings/providers').set(auth).send({ provider: p, api_key: simKeys[p] });
}

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
const validators = new Map<object, ValidateFunction>();
const validatorFor = (schema: object) => {
  let v = validators.get(schema);
  if (!v) validators.set(schema, (v = ajv.compile(schema)));
  return v;
};

/** Path segments nobody should send, already percent-encoded (lone surrogates cannot be encoded otherwise). */
const HOSTILE_PATH_SEGMENTS = [
  '%00',
  '%0A',
  '%ED%A0%80',
  '%E2%80%AE',
  '%20',
  '..',
  '%2F',
  '%25',
  'x'.repeat(300),
  '%C3%A9',
  '%F0%9F%92%BB',
  'a%00b',
];

function pathParamArb(param: Parameter): fc.Arbitrary<string> {
  const fromKnown = [...known.sshKeyIds, ...known.instanceIds, ...PROVIDERS];
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...fromKnown) },
    { weight: 2, arbitrary: validFor(param.schema).map((v) => encodeURIComponent(String(v))) },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_PATH_SEGMENTS) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent) },
  );
}

/**
 * Hostile strings for URLs, cut to 2,000 characters: a request line and headers over 16 KiB are refused by
 * Node's HTTP parser with 431 before the app sees them (README, "HTTP conventions").
 */
const URL_HOSTILE_STRINGS = HOSTILE_STRINGS.map((s) => s.slice(0, 2_000));

function queryArb(params: Parameter[]): fc.Arbitrary<string> {
  if (params.length === 0) return fc.oneof(fc.constant(''), fc.constant('unknown=1'));
  const entries = params.map((p) =>
    fc
      .option(
        fc.oneof(
          { weight: 3, arbitrary: validFor(p.schema) },
          { weight: 2, arbitrary: fc.constantFrom(...URL_HOSTILE_STRINGS) },
        ),
        {
          nil: undefined,
          freq: p.required ? 8 : 2,
        },
      )
      .map((v) => [p.name, v] as const),
  );
  return fc.tuple(fc.tuple(...entries), fc.boolean(), fc.boolean()).map(([pairs, repeat, unknown]) => {
    const search = new URLSearchParams();
    for (const [name, value] of pairs) {
      if (value === undefined) continue;
      search.append(name, typeof value === 'string' ? value : JSON.stringify(value));
      if (repeat) search.append(name, 'again');
    }
    if (unknown) search.append('not_a_parameter', 'x');
    return search.toString();
  });
}

type Body = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; type: string };

function bodyArb(op: Operation, method: string): fc.Arbitrary<Body> {
  const schema = op.requestBody?.content['application/json'].schema;
  const raw = fc.constantFrom<Body>(
    { kind: 'raw', text: '{"a":', type: 'application/json' },
    { kind: 'raw', text: `${'['.repeat(6000)}${']'.repeat(6000)}`, type: 'application/json' },
    { kind: 'raw', text: `{"provider":${'['.repeat(6000)}${']'.repeat(6000)}}`, type: 'application/json' },
    { kind: 'raw', text: 'name=x', type: 'application/x-www-form-urlencoded' },
    { kind: 'raw', text: '\u0000\u0001', type: 'text/plain' },
    { kind: 'raw', text: '"\\ud800"', type: 'application/json' },
    { kind: 'raw', text: JSON.stringify({ deep: nested(30) }), type: 'application/json' },
  );
  if (!schema) {
    if (method === 'get') return fc.constant({ kind: 'none' });
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant<Body>({ kind: 'none' }) },
      { weight: 1, arbitrary: fc.constant<Body>({ kind: 'json', value: {} }) },
      { weight: 2, arbitrary: raw },
    );
  }
  return fc.oneof(
    { weight: 4, arbitrary: validFor(schema).map((value): Body => ({ kind: 'json', value })) },
    { weight: 5, arbitrary: hostileFor(schema).map((value): Body => ({ kind: 'json', value })) },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
  );
}

function operations(): { name: string; method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op })),
  );
}

/**
 * A follow's parser: a stream of events is judged by its first chunk (then closed), any other answer (an error)
 * is read whole as JSON.
 */
function firstChunk(response: request.Response, done: (err: Error | null, body: unknown) => void): void {
  // In Node the parser is handed the incoming message (a stream), which becomes the response's `res`.
  const res = response as unknown as NodeJS.ReadableStream & {
    text?: string;
    headers: Record<string, string | undefined>;
    destroy(): void;
  };
  if (!String(res.headers['content-type']).startsWith('text/event-stream')) {
    let text = '';
    res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    res.once('end', () => {
      res.text = text;
      try {
        done(null, text ? JSON.parse(text) : {});
      } catch (err) {
        done(err as Error, text);
      }
    });
    return;
  }
  let settled = false;
  const settle = (text: string) => {
    if (settled) return;
    settled = true;
    res.text = text;
    done(null, text);
    res.destroy();
  };
  res.once('data', (chunk: Buffer) => settle(chunk.toString('utf8')));
  res.once('end', () => settle(''));
}

/** Finds the problem with one exchange, or `null` when it is what the document promises. */
function judge(op: Operation, res: request.Response): string | null {
  if (res.status >= 500) return `answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`;
  const documented = op.responses[String(res.status)];
  if (!documented)
    return (
      `answered ${res.status}, which the document does not list (${Object.keys(op.responses).join(', ')}): ` +
      JSON.stringify(res.body).slice(0, 300)
    );
  const schema = documented.content?.['application/json']?.schema;
  if (!schema) {
    // A declared text body (a log's tail, or its follow as server-sent events) is judged by its type.
    const type = /^[^;\s]*/.exec(String(res.headers['content-type'] ?? ''))![0];
    const declared = Object.keys(documented.content ?? {}).join(', ') || 'none';
    if (!res.text || declared.split(', ').includes(type)) return null;
    return `answered ${res.status} with a ${type || 'typeless'} body; the document declares ${declared}`;
  }
  const validate = validatorFor(schema);
  if (!validate(res.body))
    return (
      `answered ${res.status} with a body not matching its schema: ${ajv.errorsText(validate.errors)}: ` +
      `${JSON.stringify(res.body).slice(0, 300)}`
    );
  return null;
}

describe(`fuzz every operation of /v1/openapi.json (seed ${SEED}, ${RUNS} runs each)`, () => {
  it('the document has the operations this file is meant to cover', () => {
    // A guard against fuzzing nothing: the document of this branch has at least these 17 operations.
    expect(operations().length).toBeGreaterThanOrEqual(17);
  });

  it('every operation answers below 500, with a documented status and a body matching its schema', async () => {
    const failures: string[] = [];
    let exchanges = 0;
    const fuzzOperation = async ({ name, method, path, op }: ReturnType<typeof operations>[number]) => {
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path');
      const input = fc.record({
        path: fc.tuple(...pathParams.map(pathParamArb)).map((values) => {
          let out = path;
          pathParams.forEach((p, i) => (out = out.replace(`{${p.name}}`, values[i]!)));
          return out;
        }),
        query: queryArb(params.filter((p) => p.in === 'query')),
        body: bodyArb(op, method),
        idempotencyKey: fc.option(fc.constantFrom('k1', 'k2', 'bad key!', 'x'.repeat(200)), { nil: undefined }),
        withKey: fc.constantFrom(true, true, true, true, false),
      });
      const outcome = await fc.check(
        fc.asyncProperty(input, async (x) => {
          const url = x.query ? `${x.path}?${x.query}` : x.path;
          let req = http[method as 'get'](url);
          if (x.withKey) req = req.set(auth);
          if (x.idempotencyKey) req = req.set('Idempotency-Key', x.idempotencyKey);
          if (x.body.kind === 'json')
            req = req.set('Content-Type', 'application/json').send(JSON.stringify(x.body.value) ?? 'null');
          else if (x.body.kind === 'raw') req = req.set('Content-Type', x.body.type).send(x.body.text);
          // A log's follow streams until its instance ends: its opening chunk is what is judged.
          if (/(^|&)follow=true(&|$)/.test(x.query ?? '')) req = req.buffer(true).parse(firstChunk);
          const res = await req;
          exchanges++;
          // A fuzzed disconnect, or a fuzzed key replacing the simulator's, must not blind the runs after it (a
          // launch with a key the provider rejects is 502 provider_error by the error table).
          if (
            path.startsWith('/v1/settings/providers') &&
            (method === 'delete' || method === 'post') &&
            res.status < 300
          )
            await connectProviders();
          const problem = judge(op, res);
          if (problem) {
            const sent = x.body.kind === 'json' ? JSON.stringify(x.body.value)?.slice(0, 300) : x.body.kind;
            throw new Error(`${method.toUpperCase()} ${url.slice(0, 200)}: ${problem} (sent ${sent})`);
          }
        }),
        {
          seed: SEED,
          numRuns: method === 'post' && path === '/v1/compute/launch' ? RUNS * 2 : RUNS,
          endOnFailure: true,
        },
      );
      if (outcome.failed) {
        failures.push(
          `${name}: ${(outcome as { errorInstance?: Error }).errorInstance?.message ?? 'failed'} (counterexample ` +
            `path ${outcome.counterexamplePath})`,
        );
      }
    };
    // Operations are fuzzed side by side (the exchanges wait on Postgres, Temporal and the simulators more than
    // on this process), except those that replace or remove the account's provider keys: a fuzzed key in place of
    // the simulator's would turn another operation's launch into the provider's refusal. Those run alone, last.
    const ops = operations();
    const swapsKeys = (o: (typeof ops)[number]) => o.path.startsWith('/v1/settings/providers') && o.method !== 'get';
    const queue = ops.filter((o) => !swapsKeys(o));
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let o = queue.shift(); o; o = queue.shift()) await fuzzOperation(o);
      }),
    );
    for (const o of ops.filter(swapsKeys)) await fuzzOperation(o);
    if (failures.length)
      throw new Error(`seed ${SEED}: ${failures.length} operation(s) broke their contract:\n${failures.join('\n')}`);
    expect(exchanges).toBeGreaterThanOrEqual(operations().length * RUNS);
  });
});
