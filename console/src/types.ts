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
