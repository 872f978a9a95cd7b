-- A stopped RunPod pod keeps its volume, and RunPod bills it by the GB-month while the pod is stopped: the
-- service charges that as `instance_storage_charge` (negative, names its instance, like `instance_charge`).
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check
  CHECK (type IN ('instance_charge', 'instance_storage_charge', 'credit_topup', 'credit_grant', 'credit_refund', 'credit_dispute'));
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_amount_sign_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_amount_sign_check CHECK (
  (type IN ('instance_charge', 'instance_storage_charge') AND amount_micros <= 0)
  OR (type IN ('credit_topup', 'credit_grant') AND amount_micros > 0)
  OR (type = 'credit_refund' AND amount_micros < 0) OR (type = 'credit_dispute' AND amount_micros <> 0));
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_instance_id_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_instance_id_check
  CHECK ((type IN ('instance_charge', 'instance_storage_charge')) = (instance_id IS NOT NULL));

-- The storage of a stopped instance: its hourly price (the GB it keeps × the price per GB-month / 730 h; null
-- or 0 while nothing is kept) and how far it has been charged. Both count only while the status is `stopped`.
ALTER TABLE instances ADD COLUMN storage_per_hour_micros bigint CHECK (storage_per_hour_micros >= 0);
ALTER TABLE instances ADD COLUMN storage_charged_through timestamptz;
