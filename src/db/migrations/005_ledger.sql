-- Billing ledger: one balance row per account and an append-only list of entries. Every entry is written in
-- the same transaction as the balance update it causes, while holding that balance row's lock, so per account
-- `seq` order is the order the balance changed in: balance_after(n) = balance_after(n-1) + amount(n), and the
-- entries always sum to the balance.
CREATE TABLE account_balances (
  account_id      text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  balance_micros  bigint NOT NULL DEFAULT 0,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ledger_entries (
  id                    text PRIMARY KEY,                 -- txn_…
  seq                   bigint GENERATED ALWAYS AS IDENTITY UNIQUE,  -- newest first and cursor paging
  account_id            text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  type                  text NOT NULL CHECK (type IN ('instance_charge', 'credit_topup')),
  amount_micros         bigint NOT NULL,
  balance_after_micros  bigint NOT NULL,
  description           text NOT NULL,
  instance_id           text,                             -- the id users address the instance by
  idempotency_key       text NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  -- The same key posted twice (metering retries, Stripe redelivering a webhook) never makes a second entry.
  CONSTRAINT ledger_entries_idempotency_key UNIQUE (account_id, idempotency_key),
  CONSTRAINT ledger_entries_instance_id_check CHECK ((type = 'instance_charge') = (instance_id IS NOT NULL)),
  CONSTRAINT ledger_entries_amount_sign_check CHECK (
    (type = 'instance_charge' AND amount_micros <= 0) OR (type = 'credit_topup' AND amount_micros > 0))
);
CREATE INDEX ledger_entries_account_seq_idx ON ledger_entries (account_id, seq DESC);
CREATE INDEX ledger_entries_account_type_seq_idx ON ledger_entries (account_id, type, seq DESC);
