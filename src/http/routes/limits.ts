import { z } from 'zod';
import type { LimitQueries } from '../../db/queries/limits';
import { LIMIT_DESCRIPTIONS, LIMIT_NAMES } from '../../domain/limits';
import type { ApiRouter } from '../route';

const LimitRecord = z.object({
  name: z.enum(LIMIT_NAMES),
  limit: z.number().int().describe('the most this account may have; the next create beyond it is 422 limit_reached'),
  used: z.number().int().describe('how many the account has now'),
  description: z.string().describe('what counts, and which requests the limit refuses'),
});

export function registerLimitRoutes(api: ApiRouter, deps: { limits: LimitQueries }): void {
  api.add({
    method: 'get',
    path: '/v1/limits',
    tag: 'Limits',
    summary: "The account's limits, each with its current use",
    description:
      'A create that would take a count past its limit is refused with 422 `limit_reached` (details name the limit) ' +
      'and creates nothing. Lists page with `limit` and `cursor`; unauthenticated requests and failed ' +
      'authentications are rate limited per client address.',
    auth: true,
    responses: { 200: { description: 'Every limit with its use', schema: z.object({ data: z.array(LimitRecord) }) } },
    handler: async ({ accountId }) => {
      const used = await deps.limits.usage(accountId);
      return {
        body: {
          data: LIMIT_NAMES.map((name) => ({
            name,
            limit: deps.limits.limits[name],
            used: used[name],
            description: LIMIT_DESCRIPTIONS[name],
          })),
        },
      };
    },
  });
}
