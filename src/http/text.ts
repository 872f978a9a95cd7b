/**
 * The one place that says what text a client may send. Every string field of every route (body, query and
 * path) is built from these helpers, so nothing a client sends can reach Postgres or a provider in a form
 * that makes them fail (NUL, lone surrogates) or that misleads a reader (control and bidi characters).
 *
 * - {@link text}: single-line text. Rejects C0/C1 control characters (NUL, ESC, newlines, ...), DEL, lone
 *   UTF-16 surrogates, Unicode noncharacters and the bidi override/isolate characters. Normalized to NFC.
 * - {@link scriptText}: like `text`, but newlines and tabs are allowed (`onstart_cmd`, `startup_script`).
 * - {@link printedText}: what a program printed (a job's output tail): kept as sent, except the two things
 *   Postgres text cannot hold (NUL, lone surrogates), which become U+FFFD.
 * - {@link asciiSecret}: printable ASCII without spaces (provider API keys: they travel in HTTP headers).
 * - {@link pathId}: an id in a path: letters, digits and `_ . : -` only.
 *
 * Messages never echo the value itself; {@link echo} bounds any echo elsewhere.
 */
import { z } from 'zod';

// C0 controls, DEL, C1 controls: matching control characters is the point of these two.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// The same, minus tab, line feed and carriage return.
// eslint-disable-next-line no-control-regex
const CONTROL_IN_SCRIPT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// Bidi embeddings, overrides and isolates (the "Trojan Source" characters) and noncharacters.
const BIDI_OR_NONCHARACTER = /[\u202a-\u202e\u2066-\u2069\ufdd0-\ufdef\ufffe\uffff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string is not acceptable text, or `null`. Never includes the string itself. */
export function textProblem(value: string, options: { multiline?: boolean } = {}): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if ((options.multiline ? CONTROL_IN_SCRIPT : CONTROL).test(value)) {
    return options.multiline
      ? 'must not contain control characters other than newlines and tabs'
      : 'must not contain control characters or newlines';
  }
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode (it contains a lone surrogate)';
  if (BIDI_OR_NONCHARACTER.test(value)) return 'must not contain bidirectional override or noncharacter code points';
  return null;
}

interface TextOptions {
  min?: number;
  max: number;
  /** Trim surrounding whitespace before the length check (names and labels). */
  trim?: boolean;
}

function build(options: TextOptions, multiline: boolean): z.ZodType<string, z.ZodTypeDef, string> {
  let s = z.string();
  if (options.trim) s = s.trim();
  s = s.min(options.min ?? 1).max(options.max);
  return s
    .superRefine((value, ctx) => {
      const problem = textProblem(value, { multiline });
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .transform((value) => value.normalize('NFC'));
}

/** Single-line text of `min`..`max` UTF-16 units (default min 1). */
export function text(options: TextOptions) {
  return build(options, false);
}

/** Text that may span lines (scripts). */
export function scriptText(options: TextOptions) {
  return build(options, true);
}

const UNSTORABLE = new RegExp(`\u0000|${LONE_SURROGATE.source}`, 'g');

/** Output of a program, up to `max` UTF-16 units: NUL and lone surrogates become U+FFFD, the rest is kept. */
export function printedText(options: { max: number }) {
  return z
    .string()
    .max(options.max)
    .transform((value) => value.replace(UNSTORABLE, '\ufffd'));
}

const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/** A secret sent to a provider in an HTTP header: printable ASCII, no spaces. The message never echoes it. */
export function asciiSecret(options: { min?: number; max: number }) {
  return z
    .string()
    .min(options.min ?? 1)
    .max(options.max)
    .refine((v) => PRINTABLE_ASCII.test(v), 'must be printable ASCII without spaces (as the provider issued it)');
}

const PATH_ID = /^[A-Za-z0-9_.:-]+$/;

/** An id taken from a URL path: 1..`max` letters, digits and `_ . : -`. */
export function pathId(max: number) {
  return z.string().min(1).max(max).regex(PATH_ID, 'must be letters, digits and _ . : - only');
}

/** A short, safe rendering of a client's value for an error message: JSON, at most `max` characters. */
export function echo(value: unknown, max = 40): string {
  let rendered: string;
  if (typeof value === 'string') rendered = JSON.stringify(value.length > max ? value.slice(0, max) : value);
  else if (value === null || typeof value === 'number' || typeof value === 'boolean') rendered = String(value);
  else if (Array.isArray(value)) rendered = 'an array';
  else if (typeof value === 'object') rendered = 'an object';
  else rendered = typeof value;
  // Control characters are escaped by JSON.stringify; the cut keeps the message short whatever was sent.
  return rendered.length > max + 2 ? `${rendered.slice(0, max + 1)}…` : rendered;
}

/** Largest nesting depth of arrays and objects a JSON body may have; checked on the raw text before parsing. */
export const MAX_JSON_DEPTH = 32;

/**
 * True when the JSON text nests arrays/objects deeper than `max`. A linear scan over the bytes (strings
 * skipped), so a 64 KiB body of brackets costs microseconds and no recursion ever sees it.
 */
export function exceedsJsonDepth(raw: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}
