-- Prepaid balance: starting credit, Stripe top-ups and the state enforcement needs.

-- A third entry type: `credit_grant` (starting credit from `account:create --credit` and the local demo account).
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check
  CHECK (type IN ('instance_charge', 'credit_topup', 'credit_grant'));
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_amount_sign_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_amount_sign_check CHECK (
  (type = 'instance_charge' AND amount_micros <= 0) OR (type IN ('credit_topup', 'credit_grant') AND amount_micros > 0));

-- Set while the balance is below 24 h of the account's burn rate and `billing.balance_low` has been emitted for
-- this episode; cleared when a credit lifts the balance back above it, so the event comes once per episode.
ALTER TABLE account_balances ADD COLUMN low_balance_notified_at timestamptz;

-- Pending top-ups: one per Stripe Checkout Session we created. The webhook credits the amount recorded here
-- (never the amount Stripe reports) exactly once per session: `credited_entry_id` is set in the same
-- transaction as the `credit_topup` ledger entry, whose idempotency key is the session id.
CREATE TABLE credit_topups (
  id                 text PRIMARY KEY,                 -- topup_…
  account_id         text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  session_id         text NOT NULL UNIQUE,             -- Stripe's cs_…
  amount_micros      bigint NOT NULL CHECK (amount_micros > 0),
  checkout_url       text NOT NULL,
  status             text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'credited')),
  idempotency_key    text,                             -- the client's Idempotency-Key, if any (24 h)
  request_hash       text NOT NULL,
  credited_entry_id  text REFERENCES ledger_entries (id),
  created_at         timestamptz NOT NULL DEFAULT now(),
  credited_at        timestamptz,
  CONSTRAINT credit_topups_idempotency_key UNIQUE (account_id, idempotency_key)
);
CREATE INDEX credit_topups_account_idx ON credit_topups (account_id, created_at DESC);
