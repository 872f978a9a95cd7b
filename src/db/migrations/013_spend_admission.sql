-- Spend admission: a launch is admitted only when the balance, less what live instances have run up
-- and not been charged yet, covers the admission window of every live instance plus the new one. The launch
-- writes its row (its reservation) in the admission's own transaction, before its workflow starts, and the
-- price it was admitted at is kept here: it counts toward the burn rate until the provider's own price is
-- known, and it meters the instance when the provider never says a price.
ALTER TABLE instances ADD COLUMN quote_per_hour_micros bigint CHECK (quote_per_hour_micros >= 0);

-- An Idempotency-Key is bound to the body it was first sent with for 24 h, whatever the outcome (refused for
-- balance, failed at the provider, launched): another body is 409. Written in the admission's transaction.
CREATE TABLE launch_keys (
  id            text PRIMARY KEY,                     -- the launch's row id, `launch-<account>-<key>`
  account_id    text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  request_hash  text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Stripe refunds and disputes reverse credit: `credit_refund` (negative, one per refunded amount of a top-up)
-- and `credit_dispute` (negative when a dispute opens, positive when it is won and the credit reinstated).
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check
  CHECK (type IN ('instance_charge', 'credit_topup', 'credit_grant', 'credit_refund', 'credit_dispute'));
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_amount_sign_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_amount_sign_check CHECK (
  (type = 'instance_charge' AND amount_micros <= 0) OR (type IN ('credit_topup', 'credit_grant') AND amount_micros > 0)
  OR (type = 'credit_refund' AND amount_micros < 0) OR (type = 'credit_dispute' AND amount_micros <> 0));
-- The PaymentIntent Stripe paid the top-up's session with: refunds and disputes name it. `refunded_micros` is
-- how much of the top-up has been reversed by refunds so far (Stripe reports the cumulative amount refunded).
ALTER TABLE credit_topups ADD COLUMN payment_intent_id text UNIQUE;
ALTER TABLE credit_topups ADD COLUMN refunded_micros bigint NOT NULL DEFAULT 0;
