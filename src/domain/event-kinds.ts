/** Every event kind a webhook endpoint may subscribe to (decisions.md, "Webhooks"), and who emits it. */
export const EVENT_KINDS = [
  'instance.started',
  'instance.stopped',
  'instance.terminated',
  'instance.failed',
  /** An instance stopped (runpod) or terminated (vastai) by its idle-stop rule; beyond the spec. */
  'instance.idle_stopped',
  'spot.preempted',
  'alert.triggered',
  'schedule.run.started',
  'schedule.run.completed',
  'schedule.run.failed',
  'job.started',
  'job.attempt_ended',
  'job.retrying',
  'job.succeeded',
  'job.failed',
  'job.cancelled',
  'billing.credit_added',
  'billing.credit_reversed',
  'billing.balance_low',
  'billing.balance_depleted',
  'webhook.test',
  'api_key.created',
  'api_key.revoked',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
