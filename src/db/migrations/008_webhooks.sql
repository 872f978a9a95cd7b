-- Webhook endpoints, the delivery log, and the outbox cursor that feeds them.
CREATE TABLE webhook_endpoints (
  id             text PRIMARY KEY,
  account_id     text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  url            text NOT NULL,
  events         text[] NOT NULL CHECK (cardinality(events) > 0),
  secret         text NOT NULL,
  active         boolean NOT NULL DEFAULT true,
  failing_since  timestamptz,                           -- first failed attempt of the current failure streak
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, created_at DESC);

-- The outbox cursor: an event is fanned out to its endpoints once, in the transaction that sets dispatched_at.
-- endpoint_id targets one endpoint only (POST /v1/webhooks/{id}/test).
ALTER TABLE events
  ADD COLUMN dispatched_at timestamptz,
  ADD COLUMN endpoint_id text;
CREATE INDEX events_undispatched_idx ON events (created_at, id) WHERE dispatched_at IS NULL;
CREATE INDEX events_account_list_idx ON events (account_id, created_at DESC, id DESC);

-- Wakes the dispatcher at once (LISTEN in the worker → signal); a periodic tick covers a lost notification.
CREATE FUNCTION events_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('events_outbox', '');
  RETURN NULL;
END $$;
CREATE TRIGGER events_outbox_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_outbox_notify();

-- One delivery per (event, endpoint); its id is the webhook-id header, stable across every attempt.
CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  account_id       text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id         text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  attempt_count    integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  -- 'dispatcher' while the batch path owns it (until lease_until); 'workflow' once its retry workflow runs.
  owner            text NOT NULL DEFAULT 'dispatcher' CHECK (owner IN ('dispatcher', 'workflow')),
  lease_until      timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhook_deliveries_event_endpoint UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_orphans_idx ON webhook_deliveries (lease_until) WHERE status = 'pending' AND owner = 'dispatcher';

CREATE TABLE webhook_attempts (
  id             bigserial PRIMARY KEY,
  delivery_id    text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempted_at   timestamptz NOT NULL,
  status_code    integer,
  latency_ms     integer NOT NULL,
  response_body  text,                                  -- first 1 KiB
  error          text,
  success        boolean NOT NULL
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);

-- Events written before webhooks existed had no endpoint to reach.
UPDATE events SET dispatched_at = created_at;
