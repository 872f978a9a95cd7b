-- Price-drop and budget alerts, evaluated set-based by the alert monitor workflow, and the stop requests a
-- triggered `stop_instances` budget alert leaves for the monitor to deliver to the instances' workflows.
CREATE TABLE alerts (
  id                text PRIMARY KEY,                         -- alert_…
  seq               bigint GENERATED ALWAYS AS IDENTITY,       -- newest first and cursor paging (per account index below)
  account_id        text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  type              text NOT NULL CHECK (type IN ('price_drop', 'budget_limit')),
  action            text NOT NULL CHECK (action IN ('notify', 'stop_instances')),
  status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'triggered')),
  gpu_type          text,                                     -- price_drop only
  threshold_micros  bigint NOT NULL CHECK (threshold_micros > 0), -- threshold_price or threshold_dollars
  triggered_at      timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT alerts_gpu_type_only_for_price_drop CHECK ((type = 'price_drop') = (gpu_type IS NOT NULL)),
  CONSTRAINT alerts_stop_only_for_budget CHECK (type = 'budget_limit' OR action = 'notify'),
  CONSTRAINT alerts_triggered_at_iff_triggered CHECK ((status = 'triggered') = (triggered_at IS NOT NULL))
)
-- Room on every page so that `active → triggered` is a HOT update (no index entry written): no index covers
-- status or triggered_at, on purpose. No partial index on active alerts either: the evaluation scans the
-- table anyway at this size, and such an index makes each trigger about twice as expensive.
WITH (fillfactor = 80);
CREATE INDEX alerts_account_seq_idx ON alerts (account_id, seq DESC);

-- Month-to-date instance spend per account (budget evaluation and current_value).
CREATE INDEX ledger_entries_charges_by_time_idx ON ledger_entries (account_id, created_at) WHERE type = 'instance_charge';

-- Written in the transaction that triggers the alert; delivered (endInstance signal) after it commits, until
-- every row has `delivered_at`. No foreign key to alerts: deleting the alert must not cancel its stops.
CREATE TABLE alert_stop_requests (
  alert_id      text NOT NULL,
  instance_id   text NOT NULL REFERENCES instances (id) ON DELETE CASCADE, -- the row id = the launch workflow id
  account_id    text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  action        text NOT NULL CHECK (action IN ('stop', 'terminate')),
  reason        text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  delivered_at  timestamptz,
  PRIMARY KEY (alert_id, instance_id)
);
CREATE INDEX alert_stop_requests_pending_idx ON alert_stop_requests (created_at) WHERE delivered_at IS NULL;

-- The id of the one `alert.triggered` event of an alert: `evt_` + 22 characters of the base58 alphabet,
-- derived from the alert's own random id, so the set-based evaluation needs no random source per row and a
-- retried evaluation would name the same event. (base64 of the 128-bit digest with its 6 non-base58 symbols
-- mapped onto base58 ones.)
CREATE FUNCTION alert_event_id(alert_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 'evt_' || translate(rtrim(encode(decode(md5('alert.triggered:' || alert_id), 'hex'), 'base64'), '='), '0OIl+/', 'zyxwvu');
