/**
 * `POST /v1/compute/plan` (beyond the spec): what a launch would do, creating nothing anywhere.
 *
 * With `provider` (a launch body): the hourly price, the launch's warnings, and whether it would be admitted:
 * the same checks in the same order as the launch (provider limits, connected key, SSH key, balance, the key's
 * spend cap), then the provider's live offers for capacity. A refusal carries the status, code and message the
 * launch would answer with. Without `provider`: the offers across providers ranked as scheduled runs rank them
 * (cheapest first, spot first when asked), admitted ones first, each with a ready `launch` body.
 */
import { z } from 'zod';
import type { RunOffer, ScheduleQueries } from '../../db/queries/schedules';
import { dollarsToMicros, microsToDollars } from '../../domain/money';
import { ApiError, NoCapacityError } from '../../errors';
import type { LaunchLibrary } from '../../launch/launches';
import { launchableOffer } from '../../launch/policy';
import { PROVIDER_NAMES, PROVIDERS, type ProviderId } from '../../providers/types';
import type { ApiRouter } from '../route';
import { LaunchBody, PlanSearchBody } from '../launch-schemas';

const PlanBody = z
  .union([LaunchBody, PlanSearchBody])
  .describe('a launch body (with `provider`), or a search (without)');

const Refusal = z
  .object({
    status: z.number().int(),
    code: z.string(),
    message: z.string(),
    details: z.array(z.record(z.unknown())).optional(),
  })
  .describe('what the launch would answer instead of 201');

const PlannedLaunch = z.object({
  provider: z.enum(PROVIDERS),
  gpu_type: z.string(),
  gpu_count: z.number().int(),
  spot: z.boolean(),
  region: z.string().nullable(),
  price_per_hour: z
    .number()
    .nullable()
    .describe('dollars per hour for the whole instance; null when no price is known'),
  availability: z.number().nullable().describe('offers available now at the provider (null: not asked)'),
  warnings: z.array(z.string()),
  admitted: z.boolean(),
  refusal: Refusal.nullable(),
  launch: z.record(z.unknown()).describe('the body to POST to /v1/compute/launch'),
});
type PlannedLaunch = z.infer<typeof PlannedLaunch>;

export interface PlanDeps {
  /** What a launch would do (src/launch): the launch's own checks, admission without a reservation. */
  launches: Pick<LaunchLibrary, 'assess'>;
  schedules: Pick<ScheduleQueries, 'findRunOffers'>;
}

function refusalOf(err: ApiError): z.infer<typeof Refusal> {
  return {
    status: err.status,
    code: err.code,
    message: err.message,
    ...(err.details ? { details: err.details.map((d) => ({ ...d })) } : {}),
  };
}

/** Plans one launch body: the launch's checks, its price, capacity; never creates anything. */
async function planLaunch(
  deps: PlanDeps,
  accountId: string,
  apiKeyId: string,
  body: LaunchBody,
  known?: RunOffer,
): Promise<PlannedLaunch> {
  const plan = await deps.launches.assess({ accountId, apiKeyId, body }, known);
  return {
    provider: body.provider,
    gpu_type: body.gpu_type,
    gpu_count: body.gpu_count,
    spot: body.spot,
    region: body.region ?? null,
    price_per_hour: plan.priceMicros === null ? null : microsToDollars(plan.priceMicros),
    availability: plan.availability,
    warnings: plan.warnings,
    admitted: plan.refusal === null,
    refusal: plan.refusal && refusalOf(plan.refusal),
    launch: Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
  };
}

export function registerPlanRoutes(api: ApiRouter, deps: PlanDeps): void {
  api.add({
    method: 'post',
    path: '/v1/compute/plan',
    tag: 'Compute',
    summary: 'Plan a launch: price, warnings and admission, creating nothing',
    description:
      'With `provider`: the launch body as POST /v1/compute/launch takes it; the answer says whether that launch ' +
      'would be admitted, and if not, the status, code and message it would answer with. Without `provider`: ' +
      '`candidates` across providers, ranked as scheduled runs rank offers (cheapest first; spot first when asked), ' +
      'admitted ones first, each with a ready `launch` body. When nothing fits, the answer is the refusal itself ' +
      '(422 no_capacity, 402 insufficient_balance, …).',
    auth: true,
    // Plans read: they create nothing, so a read-only key may plan.
    scope: 'read',
    body: PlanBody,
    responses: {
      200: {
        description: 'The plan',
        schema: z.union([
          PlannedLaunch,
          z.object({ gpu_type: z.string(), gpu_count: z.number().int(), candidates: z.array(PlannedLaunch) }),
        ]),
      },
    },
    errors: [402, 422],
    handler: async ({ body, accountId, apiKey }) => {
      if ('provider' in body) return { body: await planLaunch(deps, accountId, apiKey.id, body) };
      const providers: ProviderId[] = body.providers ?? [...PROVIDERS];
      const offers = (await deps.schedules.findRunOffers(body.gpu_type, providers, body.spot, new Date()))
        .filter(launchableOffer)
        .filter(
          (o) =>
            body.max_price_per_hour === undefined ||
            o.pricePerHourMicros * body.gpu_count <= dollarsToMicros(body.max_price_per_hour),
        );
      // One candidate per provider, spot and region: the cheapest (the ranking keeps it first).
      const seen = new Set<string>();
      const distinct = offers
        .filter((o) => {
          const k = `${o.provider}|${o.spot}|${o.region ?? ''}`;
          return seen.has(k) ? false : (seen.add(k), true);
        })
        .slice(0, 10);
      if (distinct.length === 0) {
        const limit = body.max_price_per_hour === undefined ? '' : ` at or under $${body.max_price_per_hour}/h`;
        throw new NoCapacityError(
          providers.map((p) => PROVIDER_NAMES[p]).join(', '),
          `no available ${body.gpu_type} offer${limit} (GET /v1/pricing lists them)`,
        );
      }
      const planned = await Promise.all(
        distinct.map((o) => {
          const launch = LaunchBody.safeParse({
            provider: o.provider,
            gpu_type: body.gpu_type,
            gpu_count: body.gpu_count,
            spot: o.spot,
            ...(o.region ? { region: o.region } : {}),
          });
          return launch.success ? planLaunch(deps, accountId, apiKey.id, launch.data, o) : null;
        }),
      );
      const ranked = planned
        .filter((p): p is PlannedLaunch => p !== null)
        .sort((a, b) => Number(b.admitted) - Number(a.admitted));
      const first = ranked[0];
      if (!first)
        throw new NoCapacityError(
          providers.map((p) => PROVIDER_NAMES[p]).join(', '),
          `no ${body.gpu_type} offer can be launched`,
        );
      if (!first.admitted) {
        // The reason that speaks to this account: a connected provider's refusal (402 with its numbers, no
        // capacity) before "not connected" at a provider it never used.
        const why = ranked.find((p) => p.refusal!.code !== 'provider_not_connected') ?? first;
        throw new ApiError(why.refusal!.status, why.refusal!.code as ApiError['code'], why.refusal!.message);
      }
      return { body: { gpu_type: body.gpu_type, gpu_count: body.gpu_count, candidates: ranked } };
    },
  });
}
