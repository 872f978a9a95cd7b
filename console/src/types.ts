/** Shapes of the API's responses the console reads (interface-spec.md and decisions.md). */
export type ProviderId = 'runpod' | 'vastai' | 'lambda';

export interface Instance {
  id: string;
  provider: ProviderId;
  name: string | null;
  status: string;
  provider_status: string | null;
  gpu_type: string | null;
  gpu_count: number | null;
  price_per_hour: number | null;
  spot: boolean;
  region: string | null;
  docker_image: string | null;
  public_ip: string | null;
  ssh: { host: string; port: number; user: string } | null;
  created_at: string | null;
  managed: boolean;
  observed_at?: string | null;
}

export interface ComputeList {
  data: Instance[];
  errors?: { provider: ProviderId; code: string; message: string }[];
  providers?: { provider: ProviderId; observed_at: string | null; status: string }[];
}

export interface Offer {
  provider: ProviderId;
  price_per_hour: number;
  availability: number;
  spot?: boolean;
  region?: string;
}

export interface PricingSnapshot {
  gpu_types: { gpu_type: string; display_name: string; offers: Offer[] }[];
  last_updated: string;
}

export interface PriceHistory {
  gpu_type?: string;
  period?: string;
  data: { timestamp: string; provider: ProviderId; min_price_per_hour: number }[];
}

export interface Balance {
  balance: number;
  currency: string;
}

export interface Transaction {
  id: string;
  type: string;
  amount: number;
  balance_after: number;
  description: string;
  instance_id?: string;
  created_at: string;
}

export interface Transactions {
  data: Transaction[];
  has_more?: boolean;
  next_cursor?: string | null;
}

export interface CreditResponse {
  checkout_url: string;
  session_id: string;
}

export interface Page<T> {
  data: T[];
  has_more?: boolean;
  next_cursor?: string | null;
}

export interface Alert {
  id: string;
  type: 'price_drop' | 'budget_limit';
  action: 'notify' | 'stop_instances';
  status: 'active' | 'triggered';
  gpu_type?: string;
  threshold_price?: number;
  threshold_dollars?: number;
  current_value: number | null;
  triggered_at: string | null;
  created_at: string;
}

export interface Schedule {
  id: string;
  name: string;
  gpu: string;
  template: string;
  cron: string;
  max_duration_hours: number | null;
  max_cost: number | null;
  prefer_spot: boolean;
  status: 'active' | 'paused';
  next_run_at: string | null;
  last_run_at: string | null;
  created_at: string;
}

export interface ScheduleRun {
  id: string;
  status: string;
  scheduled_at: string;
  started_at: string | null;
  ended_at: string | null;
  provider: ProviderId | null;
  instance_id: string | null;
  price_per_hour: number | null;
  cost: number;
  stop_reason: string | null;
  error: string | null;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  created_at: string;
}

export interface Delivery {
  id: string;
  event: { id: string; type: string; created_at: string };
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: { attempted_at: string; status_code: number | null; latency_ms: number; error: string | null; success: boolean }[];
}

export interface AccountEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

export interface ProviderKey {
  provider: ProviderId;
  display_label: string;
  key_hint: string;
  status: 'unverified' | 'valid' | 'invalid';
  last_verified_at: string | null;
}

export interface SshKey {
  id: string;
  name: string;
  fingerprint: string;
  key_type: string;
  is_default: boolean;
  created_at: string;
}

export interface Refusal {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>[];
}

/** One planned launch (POST /v1/compute/plan): price, warnings, admission, and the body that launches it. */
export interface PlannedLaunch {
  provider: ProviderId;
  gpu_type: string;
  gpu_count: number;
  spot: boolean;
  region: string | null;
  price_per_hour: number | null;
  availability: number | null;
  warnings: string[];
  admitted: boolean;
  refusal: Refusal | null;
  launch: Record<string, unknown>;
}

export interface PlanSearch {
  gpu_type: string;
  gpu_count: number;
  candidates: PlannedLaunch[];
}

export interface Template {
  slug: string;
  name: string;
  docker_image: string;
}

export interface SpendSummary {
  balance: number;
  uncharged: number;
  available: number;
  burn_rate_per_hour: number;
  runway_hours: number | null;
  depletes_at: string | null;
  month_to_date_spend: number;
  forecast_month_spend: number;
  live_instances: number;
  currency: string;
}
