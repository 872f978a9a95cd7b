-- Depletion is a moment: the per-account spend workflow records when the account's available
-- balance (balance less what live instances have run up and not been charged yet) reached zero. The episode
-- stays open (one `billing.balance_depleted`, one grace period anchored here, whoever noticed first: the spend
-- workflow's timer or a ledger entry crossing zero) until a credit lifts the available balance above zero.
ALTER TABLE account_balances ADD COLUMN depleted_at timestamptz;
