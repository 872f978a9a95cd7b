/**
 * Validates recorded simulator exchanges against a provider's OpenAPI document, read from
 * `../shared/reference/openapi/` at test time. `$ref`s are dereferenced with @apidevtools/json-schema-ref-parser;
 * that package is ESM-only, which jest's CommonJS runtime cannot load, so it runs in a plain Node child process.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { RecordedExchange } from '../../simulators';

export const OPENAPI_DIR = path.resolve(__dirname, '../../../shared/reference/openapi');
const REPO_ROOT = path.resolve(__dirname, '../..');

const DEREF_SCRIPT = `
const fs = require('node:fs');
const YAML = require('yaml');
const mod = require('@apidevtools/json-schema-ref-parser');
const $RefParser = mod.default ?? mod;
const file = process.argv[1];
const text = fs.readFileSync(file, 'utf8');
const doc = file.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
new $RefParser().dereference(doc, { dereference: { circular: false } })
  .then((out) => process.stdout.write(JSON.stringify(out)))
  .catch((err) => { console.error(err); process.exit(1); });
`;

export type OpenApiDoc = {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
};

/** Reads and dereferences one document of the shared reference folder. */
export function loadOpenApi(fileName: string): OpenApiDoc {
  const file = path.join(OPENAPI_DIR, fileName);
  const out = execFileSync(process.execPath, ['-e', DEREF_SCRIPT, file], {
    cwd: REPO_ROOT,
    maxBuffer: 256 * 1024 * 1024,
    encoding: 'utf8',
  });
  return JSON.parse(out) as OpenApiDoc;
}

interface Operation {
  operationId?: string;
  requestBody?: { content?: Record<string, { schema?: object }> };
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}

export interface ExchangeCheck {
  operationId: string;
  method: string;
  template: string;
  status: number;
  /** Whether the response status is documented for the operation (explicitly or through `default`). */
  documented: boolean;
  /** The response came from a fault knob (429 burst, injected 5xx). */
  fault: boolean;
  requestErrors: string[];
  responseErrors: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export class OpenApiContract {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<object, ValidateFunction>();
  private readonly templates: { template: string; re: RegExp; params: number }[];

  /** `stripPrefix` is the server URL's path (`/api/v1` for Lambda), removed from recorded paths. */
  constructor(
    readonly doc: OpenApiDoc,
    private readonly stripPrefix = '',
  ) {
    const is31 = doc.openapi.startsWith('3.1');
    this.ajv = is31 ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    for (const f of ['float', 'double', 'int32', 'int64']) this.ajv.addFormat(f, true);
    this.templates = Object.keys(doc.paths)
      .map((template) => ({
        template,
        re: new RegExp(`^${template.replace(/\/+$/, '').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // Literal segments win over parameters (`/instances/bid_price/{id}` before `/instances/{id}`).
      .sort((a, b) => a.params - b.params);
  }

  private validator(schema: object): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) {
      v = this.ajv.compile(schema);
      this.compiled.set(schema, v);
    }
    return v;
  }

  private errors(schema: object | undefined, value: unknown): string[] {
    if (!schema) return [];
    const v = this.validator(schema);
    if (v(value)) return [];
    return (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }

  /** The documented operation for a concrete method and path, or null. */
  find(method: string, concretePath: string): { template: string; op: Operation } | null {
    let p = concretePath;
    if (this.stripPrefix && p.startsWith(this.stripPrefix)) p = p.slice(this.stripPrefix.length) || '/';
    for (const t of this.templates) {
      if (!t.re.test(p)) continue;
      const op = this.doc.paths[t.template]?.[method.toLowerCase()];
      if (op && typeof op === 'object' && METHODS.includes(method.toLowerCase()))
        return { template: t.template, op: op as Operation };
    }
    return null;
  }

  requestSchema(op: Operation): object | undefined {
    const content = op.requestBody?.content;
    return content?.['application/json']?.schema;
  }

  responseSchema(op: Operation, status: number): { documented: boolean; schema?: object; hasContent: boolean } {
    const r = op.responses?.[String(status)] ?? op.responses?.default;
    if (!r) return { documented: false, hasContent: false };
    const content = r.content ?? {};
    const media = content['application/json'] ?? content['application/problem+json'] ?? Object.values(content)[0];
    return { documented: true, schema: media?.schema, hasContent: Object.keys(content).length > 0 };
  }

  check(x: RecordedExchange): ExchangeCheck | null {
    const found = this.find(x.method, x.path);
    if (!found) return null;
    const { op, template } = found;
    const requestErrors = x.body === undefined ? [] : this.errors(this.requestSchema(op), x.body);
    const res = this.responseSchema(op, x.status);
    let responseErrors: string[] = [];
    if (res.documented) {
      if (res.hasContent) responseErrors = this.errors(res.schema, x.response);
      else if (x.response !== undefined)
        responseErrors = [`expected no body, got ${JSON.stringify(x.response).slice(0, 200)}`];
    }
    return {
      operationId: op.operationId ?? `${x.method} ${template}`,
      method: x.method,
      template,
      status: x.status,
      documented: res.documented,
      fault: x.fault,
      requestErrors,
      responseErrors,
    };
  }
}
