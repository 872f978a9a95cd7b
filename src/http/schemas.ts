/** Response record schemas shared by routes and the OpenAPI document. */
import { z } from 'zod';

export const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string().optional(), message: z.string() }).passthrough()).optional(),
    request_id: z.string(),
  }),
});

export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) });

export const isoTimestamp = z.string().describe('ISO 8601 UTC timestamp');
