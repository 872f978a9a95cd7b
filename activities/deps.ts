/**
 * What every activity group is given: the pool, the provider adapters and keys, the query modules (built once
 * by the worker's composition root, `src/worker.ts`), and ports for what an activity must start or signal
 * (built there from the client modules: activities never import `@temporalio/client` or a client module).
 */
import type { Pool } from '../src/db/pool';
import type { AlertQueries } from '../src/db/queries/alerts';
import type { InstanceQueries, InstanceRow } from '../src/db/queries/instances';
import type { LedgerQueries } from '../src/db/queries/ledger';
import type { PricingQueries } from '../src/db/queries/pricing';
import type { ScheduleQueries } from '../src/db/queries/schedules';
import type { SshKeyQueries } from '../src/db/queries/ssh-keys';
import type { WebhookQueries } from '../src/db/queries/webhooks';
import type { KeyVault } from '../src/domain/key-vault';
import type { AccountLimits } from '../src/domain/limits';
import type { Logger } from '../src/logger';
import type { ProviderAdapter, ProviderId } from '../src/providers/types';
import type { ProviderCredentials } from '../src/providers/provider-credentials';
import type { Resolver } from '../src/webhooks/webhook-sender';
import type { AlertsDue } from '../workflows/contracts/alerts';
import type { SpendChange } from '../workflows/contracts/billing';
import type { EndInstanceRequest, LaunchInput, LaunchTiming } from '../workflows/contracts/launch';
import type { ObservationDelivery, ObserverInput, ProviderObservation } from '../workflows/contracts/observation';

/** Every query module the activities use, one instance each per worker. */
export interface ActivityQueries {
  instances: InstanceQueries;
  ledger: LedgerQueries;
  alerts: AlertQueries;
  schedules: ScheduleQueries;
  sshKeys: SshKeyQueries;
  pricing: PricingQueries;
  webhooks: WebhookQueries;
}

/**
 * The workflows an activity starts or signals, as functions (the composition root builds them from the client
 * modules, on the worker's own client and task queue).
 */
export interface WorkflowPorts {
  /** Tells the alert monitor what landed; starts it when it is not running (signal-with-start). */
  notifyAlertMonitor(due: AlertsDue): Promise<void>;
  /**
   * Tells the account's observer about a new instance (`watchInstance`), starting it when it does not run
   * (signal-with-start). Absent in some tests: the launch workflow then signals or starts the observer itself.
   */
  watchInstance?(input: ObserverInput, instanceId: string): Promise<void>;
  /**
   * Tells an instance's launch workflow (row id) what the provider said (`providerObserved`): how an observation
   * round delivers its changes. Absent in some tests: the observer workflow then signals every change itself.
   */
  tellInstanceObserved?(rowId: string, observation: ProviderObservation): Promise<ObservationDelivery>;
  /** Asks an instance's launch workflow to stop or terminate it (`endInstance`); a finished one has nothing to end. */
  requestInstanceEnd(rowId: string, request: EndInstanceRequest): Promise<void>;
  /**
   * Tells the account's spend workflow (`balanceDepletion`) that its burn or balance moved: signal-with-start.
   * Absent when the worker was given no Temporal client for it (some tests): nothing watches the spend then.
   */
  watchAccountSpend?(accountId: string, change: SpendChange): Promise<void>;
  /** Reconciliation's look at, and adoption of, instance workflows. Absent without a Temporal client (some tests). */
  instanceWorkflows?: {
    isManaged(rowId: string): Promise<boolean>;
    manage(input: LaunchInput, row: InstanceRow): Promise<void>;
  };
}

export interface ReconcileSettings {
  /** What happens to an instance of ours that no workflow manages: adopted (metered from now) or terminated. */
  orphans: 'terminate' | 'adopt';
  /** Timings for the workflows of adopted instances (the API's defaults in production). */
  launchTiming: LaunchTiming;
}

export const DEFAULT_RECONCILE_SETTINGS: ReconcileSettings = {
  orphans: 'terminate',
  launchTiming: { pollIntervalMs: 60_000, meterIntervalMs: 3_600_000 },
};

/** Delivery settings (config: WEBHOOK_*); tests compress the waits. */
export interface WebhookSettings {
  allowedHosts: string[];
  timeoutMs: number;
  /** Waits before retries 1..n after a failed attempt; after the last, the delivery is `failed`. */
  retryScheduleMs: number[];
  /** An endpoint failing this long without a success is deactivated. */
  disableAfterMs: number;
  dispatchTickMs: number;
  claimLeaseMs: number;
  batchSize: number;
  /**
   * How long a batch waits (in all) for its first attempts before it claims the next events; the late ones
   * finish (and record themselves) in the background. Keeps one tenant's hanging endpoints from holding
   * back every other tenant's deliveries.
   */
  batchWaitMs: number;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowedHosts: [],
  timeoutMs: 15_000,
  retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  disableAfterMs: 5 * 24 * 3_600_000,
  dispatchTickMs: 5_000,
  claimLeaseMs: 120_000,
  batchSize: 100,
  batchWaitMs: 1_000,
};

/** What the metrics module counts: one call per attempt (the lead wires `webhook_deliveries_total` here). */
export type DeliveryAttemptHook = (attempt: {
  eventType: string;
  success: boolean;
  statusCode: number | null;
  latencyMs: number;
}) => void;

export interface WebhookActivityDeps {
  /** Lets the dispatcher's batch activity LISTEN for new outbox rows itself; without it, it polls every 250 ms. */
  databaseUrl?: string;
  settings?: Partial<WebhookSettings>;
  /** DNS for deliveries (tests inject one to play DNS rebinding). */
  resolve?: Resolver;
  onDeliveryAttempt?: DeliveryAttemptHook;
}

/**
 * How a retried create looks for the instance an earlier ask may have made before it asks again
 * (PROVIDER_CREATE_LOOK_WINDOW_MS): a provider still processing a create whose call timed out lists it only
 * once it is done, so one look is not enough.
 */
export interface CreateLookSettings {
  /** How long the look goes on, from the retry's start, before a second create may be sent. */
  windowMs: number;
  /** The pause between two lists of the provider's instances during the window. */
  intervalMs: number;
}

export const DEFAULT_CREATE_LOOK: CreateLookSettings = { windowMs: 15_000, intervalMs: 2_000 };

export interface ActivityDeps {
  pool: Pool;
  logger: Logger;
  adapters: Record<ProviderId, ProviderAdapter>;
  /** Platform-level keys used only to read price lists. */
  pricingKeys: Partial<Record<ProviderId, string>>;
  /** The accounts' provider keys, decrypted for one call at a time. */
  credentials: ProviderCredentials;
  queries: ActivityQueries;
  workflows: WorkflowPorts;
  reconcile?: ReconcileSettings;
  /** BALANCE_ADMISSION_WINDOW for scheduled runs (1 h): the same rule and function as API launches (`admitLaunch`). */
  admissionWindowMs?: number;
  /**
   * Boot deadlines by `provider` or `provider:gpu` (BOOT_DEADLINES); the defaults are in src/domain/boot-deadlines.ts.
   */
  bootDeadlines?: Record<string, number>;
  /** Webhook delivery settings, DNS and the per-attempt metrics hook; defaults are the real ones. */
  webhooks?: WebhookActivityDeps;
  /** Per-account limits (LIMIT_*); launches count `live_instances`. Default `DEFAULT_LIMITS`. */
  limits?: AccountLimits;
  /**
   * Jobs: where an attempt's wrapper reports its exit (PUBLIC_BASE_URL) and the vault that opens the job's env.
   * Without it, a launch carrying a job attempt's start command cannot be created.
   */
  jobs?: {
    publicBaseUrl: string;
    vault: Pick<KeyVault, 'open'>;
    /** Seconds between the tails an attempt's wrapper ships while its command runs; absent: the wrapper's 30. */
    tailIntervalSeconds?: number;
  };
  /** What a stopped RunPod pod's volume costs (RUNPOD_STOPPED_STORAGE_PRICE_PER_GB_MONTH); default $0.20/GB-month. */
  stoppedStorage?: { runpodPerGbMonthMicros: number };
  /**
   * The master key vault (the worker's): opens a scheduled run's sealed startup script at its create. Without it
   * a sealed script cannot be sent, and such a launch fails.
   */
  vault?: Pick<KeyVault, 'open'>;
  /** A retried create's look for an earlier ask's instance; default {@link DEFAULT_CREATE_LOOK}. */
  createLook?: Partial<CreateLookSettings>;
}
