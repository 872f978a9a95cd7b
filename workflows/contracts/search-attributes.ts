/**
 * Custom search attributes (all Keyword) every workflow of ours carries, so an operator filters runs in the
 * Temporal UI / `temporal workflow list --query` by business keys, e.g. `GpuoAccountId = "acct_…"`.
 * They must be registered on the server before a workflow uses them: the local default and the tests start
 * the dev server with {@link devServerSearchAttributeArgs}; docker compose runs
 * `temporal operator search-attribute create` once (service `temporal-search-attributes`).
 *
 * Imports nothing but @temporalio/common, so workflow code may import it too (`upsertSearchAttributes`).
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/** The account the run works for (`acct_…`). */
export const ACCOUNT_ID_ATTRIBUTE = defineSearchAttributeKey('GpuoAccountId', SearchAttributeType.KEYWORD);
/** The provider the run talks to: `runpod`, `vastai`, `lambda`. */
export const PROVIDER_ATTRIBUTE = defineSearchAttributeKey('GpuoProvider', SearchAttributeType.KEYWORD);
/** The provider's own instance id, set by the launch workflow once the create is accepted. */
export const INSTANCE_ID_ATTRIBUTE = defineSearchAttributeKey('GpuoInstanceId', SearchAttributeType.KEYWORD);
/** The Temporal Schedule that started the run (its schedule id), on scheduled runs and on the schedule itself. */
export const SCHEDULE_ID_ATTRIBUTE = defineSearchAttributeKey('GpuoScheduleId', SearchAttributeType.KEYWORD);
/** The job (`job_…`) a job workflow and its attempts' launches work for. */
export const JOB_ID_ATTRIBUTE = defineSearchAttributeKey('GpuoJobId', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [
  ACCOUNT_ID_ATTRIBUTE,
  PROVIDER_ATTRIBUTE,
  INSTANCE_ID_ATTRIBUTE,
  SCHEDULE_ID_ATTRIBUTE,
  JOB_ID_ATTRIBUTE,
] as const;

/** `--search-attribute Name=Keyword` pairs for `temporal server start-dev` (extraArgs). */
export function devServerSearchAttributeArgs(): string[] {
  return SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]);
}

export interface RunAttributes {
  accountId?: string;
  provider?: string;
  instanceId?: string;
  scheduleId?: string;
  jobId?: string;
}

/**
 * The `typedSearchAttributes` for a workflow start (or a schedule and its action), from whichever business
 * keys the run has. Every workflow family's client module passes its start through here, e.g.
 * `client.workflow.start(wf, { ..., typedSearchAttributes: runSearchAttributes({ accountId }) })`.
 */
export function runSearchAttributes(attrs: RunAttributes): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  if (attrs.accountId) pairs.push({ key: ACCOUNT_ID_ATTRIBUTE, value: attrs.accountId });
  if (attrs.provider) pairs.push({ key: PROVIDER_ATTRIBUTE, value: attrs.provider });
  if (attrs.instanceId) pairs.push({ key: INSTANCE_ID_ATTRIBUTE, value: attrs.instanceId });
  if (attrs.scheduleId) pairs.push({ key: SCHEDULE_ID_ATTRIBUTE, value: attrs.scheduleId });
  if (attrs.jobId) pairs.push({ key: JOB_ID_ATTRIBUTE, value: attrs.jobId });
  return pairs;
}

/** A visibility query for runs of one account (Temporal's list-filter syntax), quoting the value. */
export function accountRunsQuery(accountId: string): string {
  return `${ACCOUNT_ID_ATTRIBUTE.name} = ${JSON.stringify(accountId)}`;
}
