import type { ZodError } from 'zod';
import { ValidationError, type ErrorDetail } from '../errors';

export type InputLocation = 'body' | 'query' | 'path';

/**
 * Turns zod issues into `details: [{path, message}]`. Body paths are the field paths (`public_key`,
 * `events.0`); query and path parameters are prefixed (`query.gpu`, `path.id`). An unknown field gets one
 * entry of its own.
 */
export function zodToValidationError(error: ZodError, location: InputLocation): ValidationError {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    const prefix = location === 'body' ? [] : [location];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        details.push({ path: [...prefix, ...issue.path, key].join('.'), message: 'unknown field' });
      }
    } else {
      const path = [...prefix, ...issue.path].join('.');
      details.push({ path: path || location, message: issue.message });
    }
  }
  const first = details[0];
  const summary = first ? `Invalid ${location === 'path' ? 'path parameter' : location}: ${first.path} ${first.message}.` : `Invalid ${location}.`;
  return new ValidationError(summary, details);
}
