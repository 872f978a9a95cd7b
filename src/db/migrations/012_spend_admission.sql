-- Spend admission (issue 17): a launch is admitted only when the balance, less what live instances have run up
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
