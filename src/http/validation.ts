import type { ZodError } from 'zod';
import { ValidationError, type ErrorDetail } from '../errors';

export type InputLocation = 'body' | 'query' | 'path';

/** At most this many `details` entries, and this many characters per message: bad input is echoed bounded. */
const MAX_DETAILS = 20;
const MAX_MESSAGE_CHARS = 200;
const SAFE_SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;
// Control characters, bidirectional overrides, and lone surrogates (a high one with no low one after it, or a
// low one with no high one before it).
const UNPRINTABLE = new RegExp(
  String.raw`[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]` +
    String.raw`|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]`,
  'g',
);

/** A message fit to send back: unprintable characters replaced, at most {@link MAX_MESSAGE_CHARS} long. */
function bounded(message: string): string {
  const clean = message.replace(UNPRINTABLE, '?');
  return clean.length > MAX_MESSAGE_CHARS ? `${clean.slice(0, MAX_MESSAGE_CHARS - 1)}…` : clean;
}

/** A field name a client chose (unknown keys): shown as is when plain, else quoted and cut. */
function segment(key: string | number): string {
  if (typeof key === 'number' || SAFE_SEGMENT.test(key)) return String(key);
  const clean = key.replace(UNPRINTABLE, '?');
  return JSON.stringify(clean.length > 40 ? `${clean.slice(0, 40)}…` : clean);
}

/**
 * Turns zod issues into `details: [{path, message}]`. Body paths are the field paths (`public_key`,
 * `events.0`); query and path parameters are prefixed (`query.gpu`, `path.id`). An unknown field gets one
 * entry of its own. Iterative and bounded: whatever the input, the answer is small (bodies are at most
 * 32 levels deep before they get here, see body.ts).
 */
export function zodToValidationError(error: ZodError, location: InputLocation): ValidationError {
  const details: ErrorDetail[] = [];
  const prefix = location === 'body' ? [] : [location];
  for (const issue of error.issues) {
    if (details.length >= MAX_DETAILS) break;
    const path = issue.path.map(segment);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys.slice(0, MAX_DETAILS - details.length)) {
        details.push({ path: [...prefix, ...path, segment(key)].join('.'), message: 'unknown field' });
      }
    } else {
      details.push({ path: [...prefix, ...path].join('.') || location, message: bounded(issue.message) });
    }
  }
  const first = details[0];
  const summary = first
    ? `Invalid ${location === 'path' ? 'path parameter' : location}: ${first.path} ${first.message}.`
    : `Invalid ${location}.`;
  return new ValidationError(summary, details);
}
