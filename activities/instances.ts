/**
 * Side effects of the launch workflow: provider calls with the account's key, and the instance's rows,
 * charges and events in Postgres. Every activity is safe to retry.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { isPermanentDbError } from '../src/db/errors';
import type { EventType } from '../src/db/queries/events';
import type { InstanceRow } from '../src/db/queries/instances';
import type { ProviderId, ProviderInstance } from '../src/providers/types';
import { DEFAULT_LIMITS } from '../src/domain/limits';
import { LimitReachedError } from '../src/errors';
import { createSpendWatch } from './billing';
import { createBootActivities } from './boots';
import { toActivityFailure } from './provider-failures';
import { announceChargesToAlertMonitor } from './alerts';
import { launchIntentOf, type LaunchInput } from '../workflows/contracts/launch';
import { NOTHING_SENT_DETAIL } from '../workflows/contracts/failures';
import { observerInputOf } from '../workflows/contracts/observation';
import { keyMayEnd, keyMismatchWarning, providerKeyFingerprint } from '../src/domain/provider-key-fingerprint';
import type { ActivityDeps } from './deps';
import { createJobQueries } from '../src/db/queries/jobs';
import { resolveStartCommand } from '../src/jobs/start-command';
import { JOB_START_COMMAND_REF } from '../workflows/contracts/jobs';

export interface SshAccess {
  sshPublicKey?: string;
  sshKeyName?: string;
}

/** What the one-step `createAndRecord` answers: the created row, the boot deadline (null: not read), whether the observer was told. */
export interface LaunchedAtProvider {
  row: InstanceRow;
  bootDeadlineMs: number | null;
  observerTold: boolean;
}

export interface PollResult {
  gone: boolean;
  instance: ProviderInstance | null;
  /** When the provider answered. */
  atMs: number;
  row: InstanceRow;
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

/**
 * Heartbeats every second while a provider call runs (regular activities only), so Temporal notices a lost
 * worker within the heartbeat timeout instead of the whole start-to-close timeout.
 */
async function heartbeating<T>(fn: () => Promise<T>): Promise<T> {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return fn(); // called outside an activity (tests)
  }
  if (ctx.info.isLocal) return fn();
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), 1000);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

export function createInstanceActivities(deps: ActivityDeps) {
  // A job attempt's launch carries a reference; the command with its token and env is made here, at the create.
  const jobQueries = createJobQueries(deps.pool);
  const jobStartCommand = async (onstartCmd: string | undefined): Promise<string | undefined> => {
    if (!deps.jobs) {
      // Never send the reference itself to a provider: the instance would run a command that means nothing.
      if (onstartCmd !== undefined && JOB_START_COMMAND_REF.test(onstartCmd))
        throw new Error('this worker was started without the jobs settings (PUBLIC_BASE_URL)');
      return onstartCmd;
    }
    return resolveStartCommand(
      { jobs: jobQueries, vault: deps.jobs.vault, publicBaseUrl: deps.jobs.publicBaseUrl },
      onstartCmd,
    );
  };
  const { instances, sshKeys } = deps.queries;
  const spend = createSpendWatch(deps);
  const boots = createBootActivities(deps);

  /**
   * `err` (a failure of the one-step create before its own ask was counted) marked as "nothing sent" when the
   * database counted no ask for this launch at all. The engine's attempt number cannot say so: a local activity
   * whose worker was lost after its create starts again at attempt 1 on another worker. When the count cannot
   * be read, the failure stays unmarked (the workflow compensates, which is safe).
   */
  async function nothingSentYet(id: string, err: unknown): Promise<unknown> {
    const asks = await instances.countedCreateAttempts(id).catch(() => -1);
    if (asks !== null && asks !== 0) return err;
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

  /** Calls the provider with the account's key; `fingerprint` names that key (see `providerKeyFingerprint`). */
  async function withProvider<T>(
    accountId: string,
    provider: ProviderId,
    fn: (apiKey: string, fingerprint: string) => Promise<T>,
    key?: Promise<string | null>,
  ): Promise<T> {
    const apiKey = await (key ?? deps.credentials.findApiKey(accountId, provider));
    if (apiKey === null) {
      throw ApplicationFailure.nonRetryable(
        `No ${provider} API key is connected to this account.`,
        'provider_not_connected',
      );
    }
    try {
      return await heartbeating(() => fn(apiKey, providerKeyFingerprint(provider, apiKey)));
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  /**
   * The provider's view of `row` with the connected key. Seen: the key belongs to the instance's provider
   * account and is bound to it. Not found by a key that did not create it: the record says so and the look
   * fails (retryable later), because that answer says nothing about the instance.
   */
  async function lookAsCreatingKey(
    row: InstanceRow,
    apiKey: string,
    fingerprint: string,
  ): Promise<ProviderInstance | null> {
    const instance = await deps.adapters[row.provider].getInstance(apiKey, row.provider_instance_id!);
    if (instance) {
      if (row.provider_key_fingerprint !== fingerprint || row.key_warning)
        await instances.bindCreatingKey([row.id], fingerprint);
      return instance;
    }
    if (keyMayEnd(row, fingerprint)) return null;
    const warning = keyMismatchWarning(row.provider);
    await instances.setKeyWarning(row.id, warning);
    deps.logger.warn('provider key mismatch: a not-found from a key that did not create the instance is ignored', {
      instanceId: row.id,
      provider: row.provider,
    });
    throw ApplicationFailure.nonRetryable(warning, 'provider_key_mismatch');
  }

  /**
   * Before a stop or terminate with a key that did not create the instance: that key must see it. A record
   * warned about another key looks once too, so the warning goes when the right key is back.
   */
  async function assertKeyCanEnd(row: InstanceRow, apiKey: string, fingerprint: string): Promise<void> {
    if (row.provider_key_fingerprint === null || (row.provider_key_fingerprint === fingerprint && !row.key_warning))
      return;
    await lookAsCreatingKey(row, apiKey, fingerprint);
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
    return withProvider(
      input.accountId,
      input.provider,
      async (apiKey, fingerprint) => {
        const adapter = deps.adapters[input.provider];
        if (attempt > 1) {
          const found = await adapter.findInstanceByName(apiKey, input.providerName);
          if (found) return { instance: found, fingerprint };
        }
        const instance = await adapter.launch(apiKey, {
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
          onstartCmd: await jobStartCommand(input.onstartCmd),
        });
        return { instance, fingerprint };
      },
      key,
    );
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

  async function rowOf(id: string): Promise<InstanceRow> {
    const row = await instances.findById(id);
    if (!row) throw ApplicationFailure.nonRetryable(`instance ${id} has no row`, 'instance_missing');
    return row;
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

    /**
     * The provider's view now; `gone` when the provider no longer knows the instance. A "not found" from a key
     * that did not create the instance proves nothing: it fails (`provider_key_mismatch`, the record warned),
     * which the workflow treats as a provider it cannot ask right now.
     */
    async pollInstance(id: string): Promise<PollResult> {
      const row = await rowOf(id);
      const instance = await withProvider(row.account_id, row.provider, (apiKey, fingerprint) =>
        lookAsCreatingKey(row, apiKey, fingerprint),
      );
      const atMs = Date.now();
      if (!instance || instance.status === 'terminated') return { gone: true, instance, atMs, row };
      return { gone: false, instance, atMs, row: await instances.refreshFromProvider(id, instance) };
    },

    /** Metering starts: the account's spend workflow moves its depletion timer (the burn grew). */
    async markInstanceRunning(id: string, atMs: number, instance: ProviderInstance): Promise<InstanceRow> {
      const row = await instances.markRunning(id, new Date(atMs), instance);
      await spend.changed(row.account_id, 'instance_started');
      return row;
    },

    async resumeInstance(id: string, atMs: number, instance: ProviderInstance): Promise<InstanceRow> {
      const row = (await instances.markResumed(id, new Date(atMs), instance)) ?? (await rowOf(id));
      await spend.changed(row.account_id, 'instance_started');
      return row;
    },

    /** A launch that ended before it had an instance (or whose instance was terminated again): `failed`. */
    async failLaunch(id: string, reason: string): Promise<void> {
      await instances.markLaunchFailed(id, reason);
      const row = await instances.findById(id);
      if (row) await spend.changed(row.account_id, 'instance_ended');
    },

    /** Why a stop or terminate is still pending (null once it went through). */
    async noteLifecycleWarning(id: string, warning: string | null): Promise<InstanceRow> {
      return instances.setLifecycleWarning(id, warning);
    },

    /** Charges up to `throughMs`; answers with how far the record is now metered (the workflow's copy follows). */
    async chargeInstance(
      id: string,
      throughMs: number,
    ): Promise<{ chargedMicros: number; meteredThrough?: string | null }> {
      const { chargedMicros, row } = await instances.chargeThrough(id, new Date(throughMs));
      if (chargedMicros > 0) await announceChargesToAlertMonitor(deps);
      await spend.changed(row.account_id, 'charge');
      return { chargedMicros, meteredThrough: row.metered_through };
    },

    /** Stops at the provider; resolves with the moment the provider confirmed (metering ends there). */
    async stopInstance(id: string): Promise<{ atMs: number }> {
      const row = await rowOf(id);
      await instances.markStatus(id, 'stopping');
      const stopped = await withProvider(row.account_id, row.provider, async (apiKey, fingerprint) => {
        await assertKeyCanEnd(row, apiKey, fingerprint);
        return deps.adapters[row.provider].stop(apiKey, row.provider_instance_id!);
      });
      const atMs = Date.now();
      await instances.refreshFromProvider(id, stopped);
      return { atMs };
    },

    /** Starts a stopped instance at the provider (its workflow resumes metering once it is seen running). */
    async startInstance(id: string): Promise<InstanceRow> {
      const row = await rowOf(id);
      const started = await withProvider(row.account_id, row.provider, async (apiKey, fingerprint) =>
        assertKeyCanEnd(row, apiKey, fingerprint).then(() =>
          deps.adapters[row.provider].start(apiKey, row.provider_instance_id!),
        ),
      );
      return instances.refreshFromProvider(id, started);
    },

    /** Terminates at the provider; resolves with the moment the provider confirmed (metering ends there). */
    async terminateInstance(id: string): Promise<{ atMs: number }> {
      const row = await rowOf(id);
      if (row.status !== 'terminated') await instances.markStatus(id, 'terminating');
      await withProvider(row.account_id, row.provider, async (apiKey, fingerprint) => {
        // A terminate answers "not found" as done: from another provider account that would end a running instance.
        await assertKeyCanEnd(row, apiKey, fingerprint);
        await deps.adapters[row.provider].terminate(apiKey, row.provider_instance_id!);
      });
      return { atMs: Date.now() };
    },

    async finishInstance(
      id: string,
      status: 'stopped' | 'terminated' | 'failed',
      event: EventType | readonly EventType[] | null,
      atMs: number,
      extra: Record<string, unknown> = {},
    ): Promise<InstanceRow> {
      const row = await instances.markEnded(id, status, event, new Date(atMs), extra);
      await spend.changed(row.account_id, 'instance_ended');
      return row;
    },
  };
  return activities;
}
