/**
 * The create of the launch workflow: the intent row, the SSH access, the counted create at the provider and its
 * answer on the row; the compensation of a create that may have gone through, and a launch that failed. Every
 * activity is safe to retry.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { isPermanentDbError } from '../src/db/errors';
import type { InstanceRow } from '../src/db/queries/instances';
import type { ProviderId, ProviderInstance } from '../src/providers/types';
import { DEFAULT_LIMITS } from '../src/domain/limits';
import { LimitReachedError, ProviderRequestError } from '../src/errors';
import { createSpendWatch } from './billing';
import { createBootActivities } from './boots';
import { createInstanceAccess } from './instance-access';
import { launchIntentOf, type LaunchInput } from '../workflows/contracts/launch';
import { NOTHING_CREATED_FAILURES, NOTHING_SENT_DETAIL, type FailureType } from '../workflows/contracts/failures';
import { observerInputOf } from '../workflows/contracts/observation';
import { DEFAULT_CREATE_LOOK, type ActivityDeps } from './deps';
import { createJobQueries } from '../src/db/queries/jobs';
import { resolveStartCommand } from '../src/jobs/start-command';
import { JOB_START_COMMAND_REF } from '../workflows/contracts/jobs';
import { isSealedText, openStartupScript } from '../src/domain/startup-script';

export interface SshAccess {
  sshPublicKey?: string;
  sshKeyName?: string;
}

/**
 * What the one-step `createAndRecord` answers: the created row, the boot deadline (null: not read), whether the
 * observer was told.
 */
export interface LaunchedAtProvider {
  row: InstanceRow;
  bootDeadlineMs: number | null;
  observerTold: boolean;
}

/** A permanent database failure ends the attempt series (retrying cannot help); others are retried. */
function dbFailure(err: unknown): unknown {
  if (isPermanentDbError(err)) {
    return ApplicationFailure.nonRetryable('The database refused to record the instance.', 'internal_error');
  }
  // Retried; if the retries run out, the launch answers 503 service_unavailable (not a provider failure).
  return ApplicationFailure.create({
    message: 'The database could not be reached.',
    type: 'service_unavailable',
    cause: err as Error,
  });
}

export function createLaunchActivities(deps: ActivityDeps) {
  // A job attempt's launch carries a reference; the command with its token and env is made here, at the create.
  const jobQueries = createJobQueries(deps.pool);
  const jobStartCommand = async (onstartCmd: string | undefined, input: LaunchInput): Promise<string | undefined> => {
    if (!deps.jobs) {
      // Never send the reference itself to a provider: the instance would run a command that means nothing.
      if (onstartCmd !== undefined && JOB_START_COMMAND_REF.test(onstartCmd))
        throw new Error('this worker was started without the jobs settings (PUBLIC_BASE_URL)');
      return onstartCmd;
    }
    return resolveStartCommand(
      {
        jobs: jobQueries,
        vault: deps.jobs.vault,
        publicBaseUrl: deps.jobs.publicBaseUrl,
        tailIntervalSeconds: deps.jobs.tailIntervalSeconds,
      },
      onstartCmd,
      input,
    );
  };
  /** A scheduled run's startup script travels sealed (src/domain/startup-script.ts): opened only for the create. */
  const openedScript = (input: LaunchInput): string | undefined => {
    const cmd = input.onstartCmd;
    if (cmd === undefined || !isSealedText(cmd)) return cmd;
    if (!deps.vault)
      throw ApplicationFailure.nonRetryable(
        'this worker has no master key to open the startup script',
        'internal_error',
      );
    return openStartupScript(deps.vault, input.accountId, cmd);
  };
  const { instances, sshKeys } = deps.queries;
  const spend = createSpendWatch(deps);
  const boots = createBootActivities(deps);
  const { withProvider } = createInstanceAccess(deps);
  const createLook = { ...DEFAULT_CREATE_LOOK, ...deps.createLook };
  /**
   * Launches (row ids) whose last ask was answered with a refusal that created nothing (a 429), with that ask's
   * number: the next ask of the same launch on this worker needs one look, not the whole window.
   */
  const refusedAsks = new Map<string, number>();

  /**
   * The instance an earlier ask of this launch created, looked for by its tagged name. A create the provider was
   * still processing when its call failed (a timeout, a 5xx before the answer) is not listed yet: the look goes
   * on for `createLook.windowMs` before a second create may be sent, unless the earlier ask on this worker was
   * refused outright.
   */
  async function earlierInstance(
    adapter: (typeof deps.adapters)[ProviderId],
    apiKey: string,
    input: LaunchInput,
    attempt: number,
  ): Promise<ProviderInstance | null> {
    const refused = refusedAsks.get(input.instanceId) === attempt - 1;
    refusedAsks.delete(input.instanceId);
    const until = Date.now() + (refused ? 0 : createLook.windowMs);
    for (;;) {
      const found = await adapter.findInstanceByName(apiKey, input.providerName);
      if (found || Date.now() >= until) return found;
      await new Promise((r) => setTimeout(r, Math.min(createLook.intervalMs, until - Date.now())));
    }
  }

  /**
   * `err` raised on a retry of a create after an earlier ask was counted, before this attempt looked for what that
   * ask made (no key connected any more, the key refused, the default SSH key gone): it proves nothing about the
   * earlier ask, so it must not pass for "nothing created" (the workflow would then leave whatever that ask made
   * running at the provider, unmetered). Retryable, as the provider being out of reach: the key may come back and
   * the next attempt finds the instance; if every attempt fails, the workflow terminates by name what exists.
   */
  function earlierAskUnknown(err: unknown): unknown {
    const type = err instanceof ApplicationFailure ? err.type : undefined;
    if (!type || !NOTHING_CREATED_FAILURES.includes(type as FailureType)) return err;
    return ApplicationFailure.retryable(
      `${(err as ApplicationFailure).message} An earlier attempt of this launch asked the provider to create the ` +
        'instance; it is looked for again once the provider can be asked.',
      'provider_unavailable',
    );
  }

  /**
   * `err` (a failure of the one-step create before its own ask was counted) marked as "nothing sent" when the
   * database counted no ask for this launch at all. The engine's attempt number cannot say so: a local activity
   * whose worker was lost after its create starts again at attempt 1 on another worker. When the count cannot
   * be read, the failure is taken as after an ask (unmarked, see {@link earlierAskUnknown}): the workflow compensates,
   * which is safe.
   */
  async function nothingSentYet(id: string, err: unknown): Promise<unknown> {
    const asks = await instances.countedCreateAttempts(id).catch(() => -1);
    if (asks !== null && asks !== 0) return earlierAskUnknown(err);
    const f =
      err instanceof ApplicationFailure
        ? err
        : ApplicationFailure.create({
            message: (err as Error)?.message ?? String(err),
            type: (err as Error)?.name,
            cause: err as Error,
          });
    const details = [...(f.details ?? []), NOTHING_SENT_DETAIL];
    const { message, type, nonRetryable, nextRetryDelay, cause } = f;
    return ApplicationFailure.create({
      message,
      type: type ?? undefined,
      nonRetryable: nonRetryable ?? undefined,
      nextRetryDelay,
      details,
      cause,
    });
  }

  /**
   * The counted create (see `createAtProvider`), with the fingerprint of the key that asked: the key that
   * created the instance, recorded with it by `createAndRecord`.
   */
  async function createCounted(
    input: LaunchInput,
    ssh: SshAccess,
  ): Promise<{ instance: ProviderInstance; fingerprint: string }> {
    // The provider key is read while the ask is counted (one round trip for both); both precede the ask.
    const key = deps.credentials.findApiKey(input.accountId, input.provider);
    key.catch(() => undefined); // awaited by withProvider, unless the count fails first
    let attempt: number;
    try {
      attempt = await instances.countCreateAttempt(input.instanceId);
    } catch (err) {
      throw dbFailure(err);
    }
    let looked = attempt === 1;
    return withProvider(
      input.accountId,
      input.provider,
      async (apiKey, fingerprint) => {
        const adapter = deps.adapters[input.provider];
        if (attempt > 1) {
          const found = await earlierInstance(adapter, apiKey, input, attempt);
          if (found) return { instance: found, fingerprint };
          looked = true;
        }
        const instance = await adapter
          .launch(apiKey, {
            gpuType: input.gpuType,
            gpuCount: input.gpuCount,
            name: input.providerName,
            dockerImage: input.dockerImage,
            spot: input.spot,
            volumeGb: input.volumeGb,
            diskGb: input.diskGb,
            region: input.region,
            sshPublicKey: ssh.sshPublicKey,
            sshKeyName: ssh.sshKeyName,
            onstartCmd: await jobStartCommand(openedScript(input), input),
          })
          .catch((err: unknown) => {
            if (err instanceof ProviderRequestError && err.kind === 'rate_limited')
              refusedAsks.set(input.instanceId, attempt);
            throw err;
          });
        return { instance, fingerprint };
      },
      key,
    ).catch((err: unknown) => {
      throw looked ? err : earlierAskUnknown(err);
    });
  }

  /** The counted create, then its answer on the row. */
  async function createdRow(input: LaunchInput, ssh: SshAccess): Promise<InstanceRow> {
    const { instance, fingerprint } = await createCounted(input, ssh);
    try {
      return await instances.recordCreated(input.instanceId, instance, fingerprint);
    } catch (err) {
      throw dbFailure(err);
    }
  }

  const activities = {
    /** The key every new instance gets: the explicit Lambda key name, else the account's default key. */
    async resolveSshAccess(
      input: LaunchInput,
      defaultKey?: ReturnType<typeof sshKeys.findDefaultSshKey>,
    ): Promise<SshAccess> {
      if (input.provider === 'lambda' && input.sshKeyName) return { sshKeyName: input.sshKeyName };
      const key = await (defaultKey ?? sshKeys.findDefaultSshKey(input.accountId));
      if (!key) {
        if (input.provider === 'lambda') {
          throw ApplicationFailure.nonRetryable(
            'Lambda launches need ssh_key_name or a default SSH key.',
            'validation_error',
          );
        }
        return {};
      }
      if (input.provider === 'runpod') return { sshPublicKey: key.public_key };
      const registered = await withProvider(input.accountId, input.provider, (apiKey) =>
        deps.adapters[input.provider].ensureSshKey(apiKey, { name: key.name, publicKey: key.public_key }),
      );
      return input.provider === 'lambda' ? { sshKeyName: registered.name } : { sshPublicKey: key.public_key };
    },

    /**
     * Step 1 of a create: the row, before anything exists at the provider (see `insertIntent`). Input the
     * database refuses fails here, when nothing has been created yet.
     */
    async recordLaunchIntent(input: LaunchInput): Promise<InstanceRow> {
      try {
        return await instances.insertIntent({
          ...launchIntentOf(input),
          maxLive: (deps.limits ?? DEFAULT_LIMITS).live_instances,
        });
      } catch (err) {
        if (err instanceof LimitReachedError)
          throw ApplicationFailure.nonRetryable(err.message, 'limit_reached', { limit: err.limit, max: err.max });
        throw dbFailure(err);
      }
    },

    /**
     * Step 1 and the SSH access in one local activity (one round trip less on the launch's answer path): the
     * intent row first, then the key the instance gets. Both are safe to repeat.
     */
    async prepareLaunch(input: LaunchInput): Promise<SshAccess> {
      // The default key is read while the intent is written (one round trip for both); anything sent to a
      // provider (registering the key at vast.ai or Lambda) still waits for the intent.
      const defaultKey =
        input.provider === 'lambda' && input.sshKeyName ? undefined : sshKeys.findDefaultSshKey(input.accountId);
      defaultKey?.catch(() => undefined); // awaited below, unless the intent fails first
      await activities.recordLaunchIntent(input);
      return activities.resolveSshAccess(input, defaultKey);
    },

    /**
     * Step 2: creates the instance once. The ask is counted in the row before it is sent: the first ask goes
     * straight to the create (no provider round trip for a look); any later one (a retry, a replay after a lost
     * worker) first looks for the instance an earlier ask may have created, by its tagged name.
     */
    async createAtProvider(input: LaunchInput, ssh: SshAccess): Promise<ProviderInstance> {
      return (await createCounted(input, ssh)).instance;
    },

    /**
     * With `ssh` (runs started before `launch-one-step`): steps 2 and 3 in one local activity, the counted
     * create, then its answer on the row. A retry counts again, so it looks for the instance an earlier attempt
     * created (and perhaps could not record) before creating; a failure after the create is not one of the
     * nothing-created refusals, so the workflow compensates.
     *
     * Without `ssh`: the whole create in one local activity (one workflow activation before the launch is
     * answered, and no signal or activity task of the workflow's own after it): `prepareLaunch`, the same
     * counted create and record, then the observer told about the instance (signal-with-start); the boot
     * deadline is read meanwhile. A failure of the first attempt before the ask is counted carries
     * {@link NOTHING_SENT_DETAIL}: nothing is compensated.
     */
    async createAndRecord(input: LaunchInput, ssh?: SshAccess): Promise<InstanceRow | LaunchedAtProvider> {
      if (ssh) return createdRow(input, ssh);
      const deadline =
        input.bootDeadlineMs === undefined
          ? boots.bootDeadline(input).then(
              (d) => d.ms,
              () => null,
            )
          : Promise.resolve(null);
      let access: SshAccess;
      try {
        access = await activities.prepareLaunch(input);
      } catch (err) {
        throw await nothingSentYet(input.instanceId, err);
      }
      const row = await createdRow(input, access);
      let observerTold = false;
      if (deps.workflows.watchInstance) {
        observerTold = await deps.workflows.watchInstance(observerInputOf(input), input.instanceId).then(
          () => true,
          (err: unknown) => {
            deps.logger.warn('launch: could not tell the observer; the workflow will', {
              instanceId: input.instanceId,
              err,
            });
            return false;
          },
        );
      }
      return { row, bootDeadlineMs: await deadline, observerTold };
    },

    /** Step 3: what the provider created, on the row (price fixed from here on). */
    async recordCreated(id: string, instance: ProviderInstance): Promise<InstanceRow> {
      try {
        return await instances.recordCreated(id, instance);
      } catch (err) {
        throw dbFailure(err);
      }
    },

    /**
     * Compensation for a create that may have gone through although the launch failed: finds the instance by
     * its tagged name and terminates it. Resolves `true` when one was found (and terminated).
     */
    async terminateByName(input: Pick<LaunchInput, 'accountId' | 'provider' | 'providerName'>): Promise<boolean> {
      return withProvider(input.accountId, input.provider, async (apiKey) => {
        const found = await deps.adapters[input.provider].findInstanceByName(apiKey, input.providerName);
        if (!found || found.status === 'terminated') return false;
        await deps.adapters[input.provider].terminate(apiKey, found.id);
        return true;
      });
    },

    /** A launch that ended before it had an instance (or whose instance was terminated again): `failed`. */
    async failLaunch(id: string, reason: string): Promise<void> {
      await instances.markLaunchFailed(id, reason);
      const row = await instances.findById(id);
      if (row) await spend.changed(row.account_id, 'instance_ended');
    },
  };
  return activities;
}
