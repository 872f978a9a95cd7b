/**
 * Shapes of the API's responses the console reads: taken from the SDK's types, which are generated from the
 * served OpenAPI document (sdk/src/schema.ts), so a change of the API shows up here as a type error.
 */
import type { paths } from '../../sdk/src';

type Ok<R> = R extends { 200: { content: { 'application/json': infer B } } }
  ? B
  : R extends { 201: { content: { 'application/json': infer B } } }
    ? B
    : never;
/** The JSON body of a successful `M` on path `P`. */
export type Answer<P extends keyof paths, M extends 'get' | 'post' | 'put' | 'delete'> = paths[P][M] extends {
  responses: infer R;
}
  ? Ok<R>
  : never;
type Item<L> = L extends { data: (infer I)[] } ? I : never;

export type ComputeList = Answer<'/v1/compute', 'get'>;
export type Instance = Answer<'/v1/compute/launch', 'post'>;
export type ProviderId = Instance['provider'];
export type PricingSnapshot = Answer<'/v1/pricing', 'get'>;
export type PriceHistory = Answer<'/v1/pricing/history', 'get'>;
export type Balance = Answer<'/v1/billing/balance', 'get'>;
export type Transactions = Answer<'/v1/billing/transactions', 'get'>;
export type Transaction = Item<Transactions>;
export type CreditResponse = Answer<'/v1/billing/credit', 'post'>;
export type SpendSummary = Answer<'/v1/billing/summary', 'get'>;
export type Alert = Item<Answer<'/v1/alerts', 'get'>>;
export type Schedule = Item<Answer<'/v1/schedules', 'get'>>;
export type ScheduleRun = Item<Answer<'/v1/schedules/{id}/runs', 'get'>>;
export type Webhook = Item<Answer<'/v1/webhooks', 'get'>>;
export type Delivery = Item<Answer<'/v1/webhooks/{id}/deliveries', 'get'>>;
export type AccountEvent = Item<Answer<'/v1/events', 'get'>>;
export type ProviderKey = Item<Answer<'/v1/settings/providers', 'get'>>;
export type SshKey = Item<Answer<'/v1/ssh-keys', 'get'>>;
export type Template = Item<Answer<'/v1/templates', 'get'>>;
export type ApiKeyRecord = Item<Answer<'/v1/api-keys', 'get'>>;
type PlanAnswer = Answer<'/v1/compute/plan', 'post'>;
export type PlanSearch = Extract<PlanAnswer, { candidates: unknown }>;
export type PlannedLaunch = PlanSearch['candidates'][number];
export type Refusal = NonNullable<PlannedLaunch['refusal']>;

/** A page of a list endpoint. */
export interface Page<T> {
  data: T[];
  has_more?: boolean;
  next_cursor?: string | null;
}
export type InstanceDetail = Answer<'/v1/compute/{provider_instance_id}', 'get'>;
export type ListedInstance = ComputeList['data'][number];
export type Job = Answer<'/v1/jobs/{id}', 'get'>;
export type JobAttempt = NonNullable<Job['attempts']>[number];
