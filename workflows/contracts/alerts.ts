/**
 * Contract of the alert monitor (`alertMonitor`, one long-running workflow, id `alert-monitor` in production):
 * its input, the signal that says prices or charges landed, and its stats query. A leaf.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** The monitor's fixed workflow id in production (tests run their own under other ids). */
export const ALERT_MONITOR_WORKFLOW_ID = 'alert-monitor';

/** What landed: new prices (a pricing refresh), new charges (metering), or both. */
export interface AlertsDue {
  price?: boolean;
  budget?: boolean;
}
/** Sent by the pricing refresh and by metering (signal-with-start, so a monitor that is not running starts). */
export const alertsDueSignal = defineSignal<[AlertsDue]>('alertsDue');

export interface AlertMonitorStats {
  evaluations: number;
  priceTriggered: number;
  budgetTriggered: number;
  stopRequestsDelivered: number;
  /** Delivery rounds that gave up for now (the requests stay pending and are retried next turn). */
  deliveryFailures: number;
}
export const alertMonitorStatsQuery = defineQuery<AlertMonitorStats>('stats');

export interface AlertMonitorInput {
  /** Safety-net interval: everything is evaluated at least this often even when no signal arrives. */
  tickMs: number;
  /**
   * Budgets and key caps are evaluated at least this often (the observation interval), since accrued spend
   * grows between charges; default {@link DEFAULT_BUDGET_TICK_MS}, never longer than `tickMs`.
   */
  budgetTickMs?: number;
  /** Evaluations before continuing as new (bounded history); default 200. */
  continueAsNewAfter?: number;
  /** Carried over a continue-as-new: work signalled but not yet done, and the running totals. */
  due?: { price: boolean; budget: boolean };
  stats?: AlertMonitorStats;
}

/** Where the worker's monitor runs and how often it ticks. */
export interface AlertMonitorSettings {
  /** `alert-monitor` in production; tests that share one Temporal server use their own. */
  workflowId?: string;
  /** The safety-net evaluation interval (config ALERT_MONITOR_TICK). */
  tickMs: number;
  /** How often budgets and key caps are evaluated (config INSTANCE_OBSERVE_INTERVAL); default 60 s. */
  budgetTickMs?: number;
}

/** Budgets and key caps are evaluated at least once a minute (the default observation interval). */
export const DEFAULT_BUDGET_TICK_MS = 60_000;

/** Production defaults when the worker's deps name no monitor (5 min tick, id `alert-monitor`). */
export const DEFAULT_ALERT_MONITOR: AlertMonitorSettings = { tickMs: 5 * 60_000 };
