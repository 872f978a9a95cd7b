-- Stripe refunds and disputes that arrive before their top-up is credited (Stripe does not order its events):
-- kept here and applied when the top-up credits, instead of being acknowledged and dropped. One row per
-- effect: a refund's row holds the highest cumulative amount refunded seen; a dispute has one row per phase.
CREATE TABLE early_credit_reversals (
  payment_intent_id text NOT NULL,
  effect text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('refund', 'dispute')),
  amount_cents bigint NOT NULL,
  charge_id text,
  dispute_id text,
  phase text CHECK (phase IN ('opened', 'won')),
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (payment_intent_id, effect)
);
