/**
 * The launch library: what the launch and plan routes call. A launch body becomes the workflow's input once
 * (`launchInputOf`), its intent once (`launchIntentOf`); the policy checks it, admission decides and reserves,
 * and the launch is started through the port it is given (the instance client). Routes parse and answer.
 * Scheduled runs are admitted by the same rule through `admitScheduledRun` (./admission).
 */
import { launchIntentOf, type LaunchInput, type LaunchTiming } from '../../workflows/contracts/launch';
import type { InstanceRow } from '../db/queries/instances';
import type { RunOffer } from '../db/queries/schedules';
import { randomToken } from '../domain/ids';
import { ApiError, NoCapacityError, ServiceUnavailableError } from '../errors';
import { PROVIDER_NAMES, type ProviderAdapter, type ProviderId } from '../providers/types';
import type { LaunchAdmission, LaunchCost } from './admission';
import { DEFAULT_LAUNCH_TIMING, launchInputOf, type LaunchRequest, type ParsedLaunchBody } from './input';
import { assertLaunchAllowed, launchWarnings, type LaunchPolicyDeps } from './policy';

export interface LaunchLibraryDeps extends LaunchPolicyDeps {
  admission: LaunchAdmission;
  /** Providers' live offers, for a plan's capacity. */
  adapters: Record<ProviderId, Pick<ProviderAdapter, 'listOffers'>>;
  /** Poll and meter intervals given to the launches built here (hours in production; short in tests). */
  timing?: LaunchTiming;
  /**
   * Starts (or joins) the launch workflow and resolves once the provider accepted the create, or throws the
   * refusal as our error (`InstanceClient.launch`). A port, so the library sits below the client modules.
   */
  start: (input: LaunchInput) => Promise<InstanceRow>;
}

/** A launch body as a route parsed it: the account, the key that asks, the Idempotency-Key sent or generated. */
export type LaunchAsk = Omit<LaunchRequest, 'warnings'>;

/** What a launch would do, creating nothing: its price, capacity, warnings, and the refusal it would meet. */
export interface LaunchAssessment {
  /** The whole instance's hourly price in micros; null when nobody quotes one. */
  priceMicros: number | null;
  /** Offers available now at the provider (null: not asked). */
  availability: number | null;
  warnings: string[];
  /** The error the launch would answer with instead of 201; null when it would be admitted. */
  refusal: ApiError | null;
}

/** What admission prices: the launch's provider, GPU, spot and region under its instance id. */
function costOf(input: LaunchInput): LaunchCost {
  const { instanceId, accountId, provider, gpuType, gpuCount, spot, region } = input;
  return { instanceId, accountId, provider, gpuType, gpuCount, spot, region };
}

export function createLaunchLibrary(deps: LaunchLibraryDeps) {
  const timing = deps.timing ?? DEFAULT_LAUNCH_TIMING;
  const inputOf = (ask: LaunchAsk): LaunchInput =>
    launchInputOf({ ...ask, warnings: launchWarnings(ask.body) }, timing);

  /** Live availability of the launch's offer at its provider (the launch would meet no capacity at 0). */
  async function liveAvailability(accountId: string, body: ParsedLaunchBody): Promise<number> {
    const apiKey = await deps.credentials.findApiKey(accountId, body.provider);
    const offers = await deps.adapters[body.provider].listOffers(apiKey ?? undefined);
    return offers
      .filter(
        (o) =>
          o.gpuType === body.gpu_type &&
          o.spot === body.spot &&
          (!body.region || !o.region || o.region === body.region),
      )
      .reduce((sum, o) => sum + o.availability, 0);
  }

  return {
    /** Admits the start of a stopped instance (the launch's balance rule and limit), or throws its refusal. */
    admitStart: (row: Parameters<LaunchAdmission['admitStart']>[0], apiKeyId?: string | null) =>
      deps.admission.admitStart(row, apiKeyId),

    /**
     * Launches: the policy's checks, admission (the reservation written under the account's lock), then the
     * workflow. Resolves with the instance row once the provider accepted the create; throws what the launch
     * answers. A definite refusal after admission gives the reservation back.
     */
    async launch(ask: LaunchAsk): Promise<InstanceRow> {
      await assertLaunchAllowed(deps, ask.body, ask.accountId);
      const input = inputOf(ask);
      await deps.admission.admit({ ...costOf(input), intent: launchIntentOf(input) });
      try {
        return await deps.start(input);
      } catch (err) {
        // A definite refusal (not "still waiting"): the reservation must not hold money for nothing.
        if (err instanceof ApiError && !(err instanceof ServiceUnavailableError))
          await deps.admission.release(input.instanceId, err.message);
        throw err;
      }
    },

    /**
     * What the launch of `body` would do, writing nothing: the same checks in the same order (policy, then
     * admission without a reservation), then the provider's live offers for capacity unless `known` (a ranked
     * offer from the pricing snapshot) says.
     */
    async assess(
      ask: Omit<LaunchAsk, 'idempotencyKey'>,
      known?: Pick<RunOffer, 'pricePerHourMicros' | 'availability'>,
    ): Promise<LaunchAssessment> {
      // A key no launch has: admission never mistakes the plan for a replay of an existing launch.
      const input = inputOf({ ...ask, idempotencyKey: `plan-${randomToken(64)}` });
      const { body, accountId } = ask;
      let refusal: ApiError | null = null;
      let availability: number | null = known?.availability ?? null;
      const priceMicros = known
        ? known.pricePerHourMicros * body.gpu_count
        : await deps.admission.hourlyPriceMicros(costOf(input));
      try {
        await assertLaunchAllowed(deps, body, accountId);
        await deps.admission.check({ ...costOf(input), intent: launchIntentOf(input) });
        if (!known) {
          availability = await liveAvailability(accountId, body);
          const offer = `${body.gpu_type}${body.spot ? ' spot' : ''}`;
          if (availability <= 0)
            throw new NoCapacityError(PROVIDER_NAMES[body.provider], `no ${offer} offer is available right now`);
        }
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        refusal = err;
      }
      return { priceMicros, availability, warnings: input.warnings, refusal };
    },
  };
}
export type LaunchLibrary = ReturnType<typeof createLaunchLibrary>;
