/**
 * A small JSON Schema → fast-check converter for the fuzz test: `validFor(schema)` draws values the schema
 * accepts (as far as JSON Schema can say; refinements in code may still refuse them), `hostileFor(schema)`
 * draws values a client should not send: hostile strings, wrong types, unknown fields, deep nesting.
 * Covers the keywords our OpenAPI document uses: type (and type arrays), enum, const, string lengths and
 * pattern, numeric bounds, items, properties / required / additionalProperties, anyOf / oneOf / allOf.
 */
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  nullable?: boolean;
  default?: unknown;
}

/** Strings that have broken services: NUL, controls, lone surrogates, bidi and zero-width, huge, odd. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0001\u0002\u001f',
  '\u001b[31mred',
  '\u007f',
  '\u0085',
  'line\nbreak',
  'cr\r\nlf',
  '\t',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  'abc\u202edcba',
  '\u2066isolate\u2069',
  'zero\u200bwidth',
  '\u200f\u200e',
  '\ufeffbom',
  '\uffff',
  'e\u0301',
  '💻'.repeat(40),
  'Ω'.repeat(70),
  'x'.repeat(513),
  'y'.repeat(20_000),
  '../../etc/passwd',
  '%00',
  '%',
  "'; DROP TABLE ssh_keys; --",
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  '-1',
  '1e309',
];

/** A value nested `depth` arrays deep. */
export function nested(depth: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

export const HOSTILE_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  [],
  {},
  [null],
  { '': '' },
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
  nested(40),
  nested(1000),
  ...HOSTILE_STRINGS,
];

const types = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** Values the schema accepts. */
export function validFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map(validFor));
  if (schema.allOf?.length) return validFor(Object.assign({}, ...schema.allOf) as JsonSchema);
  const ts = types(schema);
  if (ts.length > 1 || schema.nullable) {
    const arbs = ts.map((type) => validFor({ ...schema, type, nullable: false }));
    if (schema.nullable && !ts.includes('null')) arbs.push(fc.constant(null));
    return fc.oneof(...arbs);
  }
  switch (ts[0]) {
    case 'string':
      return stringFor(schema);
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000_000);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
      if (ts[0] === 'integer') return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? validFor(schema.items) : fc.jsonValue(), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'object':
    default:
      if (!schema.properties) return fc.constant({});
      return objectFor(schema);
  }
}

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
  if (schema.pattern) {
    const re = new RegExp(schema.pattern);
    return fc.stringMatching(re).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
  }
  return fc.oneof(
    fc.string({ minLength, maxLength }),
    fc.string({ minLength, maxLength, unit: 'grapheme' }),
    fc
      .constantFrom('a100-40gb', 'h100-80gb-sxm', 'rtx-a6000', 'us-east-1', 'ubuntu:22.04', 'default')
      .filter((s) => s.length >= minLength && s.length <= maxLength),
  );
}

function objectFor(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(schema.properties ?? {})) record[key] = validFor(sub);
  return fc.record(record, { requiredKeys: [...required].filter((k) => k in record) });
}

/** Values a client should not send in place of this schema's value, or inside it. */
export function hostileFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  const anything = fc.constantFrom(...HOSTILE_VALUES);
  if (!schema.properties || Object.keys(schema.properties).length === 0) {
    return fc.oneof({ weight: 3, arbitrary: anything }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });
  }
  const keys = Object.keys(schema.properties);
  const valid = objectFor(schema);
  return fc.oneof(
    // One field replaced by a hostile value (string fields get hostile strings most of the time).
    {
      weight: 6,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...keys), anything)
        .map(([obj, key, value]) => ({ ...obj, [key]: value })),
    },
    // A nested object field replaced by a hostile version of itself.
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...keys))
        .chain(([obj, key]) => hostileFor(schema.properties![key]!).map((value) => ({ ...obj, [key]: value }))),
    },
    // Unknown fields, with odd names.
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(...HOSTILE_STRINGS, 'is_default', 'account_id', 'id'),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .map(([obj, key, value]) => ({ ...obj, [key]: value })),
    },
    // Required fields missing.
    { weight: 1, arbitrary: fc.constant({}) },
    // Not an object at all.
    { weight: 2, arbitrary: anything },
  );
}
