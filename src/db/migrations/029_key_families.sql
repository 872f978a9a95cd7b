-- A key family shares its caps. A key made by another key records that key (`parent_key_id`) and the whole
-- line of keys above it (`ancestor_ids`, the first key first): a capped key's cap covers its own spend and the
-- spend of every key made under it, so children each capped at their parent's cap no longer add up. Keys made
-- before this migration have no recorded maker and stand alone.
ALTER TABLE service_keys
  ADD COLUMN parent_key_id text REFERENCES service_keys (id),
  ADD COLUMN ancestor_ids text[] NOT NULL DEFAULT '{}';
CREATE INDEX service_keys_ancestors_idx ON service_keys USING gin (ancestor_ids);

-- A stopped instance whose start was admitted holds its place until it is seen running (or the reservation
-- lapses): it counts in the burn at its price and in the live count, as a launch's reservation row does, so
-- two starts (or a start and a launch) cannot pass on the same money.
ALTER TABLE instances ADD COLUMN start_reserved_until timestamptz;

-- Admission checks every capped key of the launching key's family, counts stopped instances' storage in the
-- burn and uncharged figures (and in the caps) as GET /v1/billing/summary does, and admitted starts.
CREATE OR REPLACE FUNCTION admit_launch(
  p_account text, p_id text, p_hash text, p_reserve boolean, p_quote bigint, p_window_ms bigint, p_max_live integer,
  p_binding_ms bigint, p_key_id text,
  p_provider text, p_provider_name text, p_name text, p_gpu_type text, p_gpu_count integer, p_spot boolean,
  p_region text, p_docker_image text, p_warnings jsonb
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_balance bigint;
  v_bound text;
  v_existing record;
  v_burn bigint;
  v_uncharged bigint;
  v_live integer;
  v_key record;
  v_key_json jsonb := NULL;
  v_charged bigint;
  v_key_live bigint;
  v_available bigint;
  v_required numeric;
  v_figures jsonb;
  v_cap record;
  v_stored record;
BEGIN
  SELECT balance_micros INTO v_balance FROM account_balances WHERE account_id = p_account FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO account_balances (account_id) VALUES (p_account) ON CONFLICT (account_id) DO NOTHING;
    SELECT balance_micros INTO v_balance FROM account_balances WHERE account_id = p_account FOR UPDATE;
    v_balance := coalesce(v_balance, 0);
  END IF;

  -- The key is bound to the body it was first sent with for the binding period, refused or not.
  IF p_reserve THEN
    INSERT INTO launch_keys AS k (id, account_id, request_hash) VALUES (p_id, p_account, p_hash)
    ON CONFLICT (id) DO UPDATE SET
      request_hash = CASE WHEN k.created_at < now() - p_binding_ms * interval '1 millisecond' THEN excluded.request_hash ELSE k.request_hash END,
      created_at = CASE WHEN k.created_at < now() - p_binding_ms * interval '1 millisecond' THEN now() ELSE k.created_at END
    RETURNING k.request_hash INTO v_bound;
    IF v_bound <> p_hash THEN
      RETURN jsonb_build_object('outcome', 'conflict_bound');
    END IF;
  END IF;

  SELECT request_hash, status, provider_instance_id, end_reason, extract(epoch FROM now() - created_at) * 1000 AS age_ms INTO v_existing
  FROM instances WHERE id = p_id AND account_id = p_account;
  IF FOUND THEN
    -- A failed launch whose instance was created at the provider ran its workflow to the end: the engine will
    -- not start the key's workflow again, so resetting the row would leave it without an owner.
    IF v_existing.status = 'failed' AND v_existing.provider_instance_id IS NOT NULL THEN
      RETURN jsonb_build_object('outcome', 'conflict_ran', 'reason', v_existing.end_reason);
    END IF;
    IF v_existing.request_hash <> p_hash AND (v_existing.status <> 'failed' OR v_existing.age_ms < p_binding_ms) THEN
      RETURN jsonb_build_object('outcome', 'conflict_existing');
    END IF;
    IF v_existing.request_hash = p_hash AND v_existing.status <> 'failed' THEN
      RETURN jsonb_build_object('outcome', 'replay');
    END IF;
  END IF;

  -- The fleet: burn rate, uncharged usage (as the charge computes it: whole ms from the run's start, half up)
  -- and live count. The row of this key, if any, is failed here: not counted.
  SELECT coalesce(sum(p), 0)::bigint,
    coalesce(sum(CASE WHEN s IS NULL OR m IS NULL OR n <= m THEN 0
                      ELSE floor(p * (n - s) / 3600000 + 0.5) - floor(p * greatest(m - s, 0) / 3600000 + 0.5) END), 0)::bigint,
    count(*)::integer
  INTO v_burn, v_uncharged, v_live
  FROM (
    SELECT coalesce(price_per_hour_micros, quote_per_hour_micros, 0)::numeric AS p,
      -- An admitted start has run nothing since its stop: no uncharged usage.
      CASE WHEN status = 'stopped' THEN NULL ELSE trunc(extract(epoch FROM started_at) * 1000) END AS s,
      trunc(extract(epoch FROM metered_through) * 1000) AS m,
      trunc(extract(epoch FROM now()) * 1000) AS n
    FROM instances WHERE account_id = p_account
      AND (status IN ('provisioning', 'running', 'stopping', 'terminating', 'unknown')
           OR (status = 'stopped' AND start_reserved_until > now()))) live;
  -- Stopped instances' storage (a RunPod pod's volume, migration 032) burns too: its hourly price, and what it
  -- has accrued since its last storage charge, as the storage charge computes it.
  SELECT coalesce(sum(storage_per_hour_micros), 0)::bigint AS burn,
    coalesce(sum(round(storage_per_hour_micros::numeric
      * greatest(extract(epoch FROM now() - greatest(storage_charged_through, metered_through)) * 1000, 0) / 3600000)), 0)::bigint AS uncharged
  INTO v_stored
  FROM instances WHERE account_id = p_account AND status = 'stopped' AND storage_per_hour_micros > 0
    AND (start_reserved_until IS NULL OR start_reserved_until <= now());
  v_burn := v_burn + v_stored.burn;
  v_uncharged := v_uncharged + v_stored.uncharged;
  v_figures := jsonb_build_object('balance', v_balance, 'burn', v_burn, 'uncharged', v_uncharged, 'live', v_live);

  -- The launching key: revoked or expired keys admit nothing (a schedule outliving its key); a capped key
  -- needs its charged spend this period + the next hour of its live instances + this launch's hour to fit.
  IF p_key_id IS NOT NULL THEN
    SELECT id, name, key_prefix, spend_limit_micros, spend_limit_period, revoked_at, expires_at, ancestor_ids INTO v_key
    FROM service_keys WHERE id = p_key_id AND account_id = p_account;
    IF NOT FOUND THEN
      RETURN v_figures || jsonb_build_object('outcome', 'key_unusable', 'key', jsonb_build_object('revoked', true));
    END IF;
    IF v_key.revoked_at IS NOT NULL OR v_key.expires_at <= now() THEN
      RETURN v_figures || jsonb_build_object('outcome', 'key_unusable', 'key', jsonb_build_object(
        'name', v_key.name, 'prefix', v_key.key_prefix, 'revoked', v_key.revoked_at IS NOT NULL));
    END IF;
    -- Every capped key of the family, the launching key first, then the keys that made it, nearest first: each
    -- cap covers the spend of its key and of every key made under it (charges and storage this period, the next
    -- hour of their live instances and stopped instances' storage), and must still fit with this launch's hour.
    FOR v_cap IN
      SELECT k.id, k.name, k.key_prefix, k.spend_limit_micros, k.spend_limit_period
      FROM service_keys k
      WHERE k.account_id = p_account AND k.spend_limit_micros IS NOT NULL
        AND (k.id = p_key_id OR k.id = ANY(v_key.ancestor_ids))
      ORDER BY cardinality(k.ancestor_ids) DESC
    LOOP
      SELECT coalesce(-sum(l.amount_micros), 0)::bigint INTO v_charged
      FROM service_keys d
      JOIN instances i ON i.account_id = d.account_id AND i.api_key_id = d.id
      JOIN ledger_entries l ON l.account_id = i.account_id AND l.instance_id = coalesce(i.provider_instance_id, i.id)
        AND l.type IN ('instance_charge', 'instance_storage_charge')
        AND l.created_at >= date_trunc(v_cap.spend_limit_period, now(), 'UTC')
      WHERE d.account_id = p_account AND (d.id = v_cap.id OR v_cap.id = ANY(d.ancestor_ids));
      SELECT coalesce(sum(CASE WHEN i.status = 'stopped' THEN coalesce(i.storage_per_hour_micros, 0)
                               ELSE coalesce(i.price_per_hour_micros, i.quote_per_hour_micros, 0) END), 0)::bigint INTO v_key_live
      FROM service_keys d JOIN instances i ON i.account_id = d.account_id AND i.api_key_id = d.id
      WHERE d.account_id = p_account AND (d.id = v_cap.id OR v_cap.id = ANY(d.ancestor_ids))
        AND i.status IN ('provisioning', 'running', 'stopping', 'terminating', 'unknown', 'stopped');
      v_key_json := jsonb_build_object('name', v_cap.name, 'prefix', v_cap.key_prefix, 'limit', v_cap.spend_limit_micros,
        'period', v_cap.spend_limit_period, 'charged', v_charged, 'live_hourly', v_key_live,
        'family', v_cap.id <> p_key_id);
      IF (p_quote IS NULL AND v_charged + v_key_live >= v_cap.spend_limit_micros)
         OR (p_quote IS NOT NULL AND v_charged + v_key_live + p_quote > v_cap.spend_limit_micros) THEN
        RETURN v_figures || jsonb_build_object('outcome', 'key_capped', 'key', v_key_json);
      END IF;
    END LOOP;
  END IF;

  IF p_max_live IS NOT NULL AND v_live >= p_max_live THEN
    RETURN v_figures || jsonb_build_object('outcome', 'limited');
  END IF;

  -- The balance rule: balance − uncharged ≥ window × (burn + this), the window's charge rounded half up.
  v_available := v_balance - v_uncharged;
  v_required := CASE WHEN p_window_ms <= 0 THEN 0
                     ELSE floor((v_burn + coalesce(p_quote, 0))::numeric * p_window_ms / 3600000 + 0.5) END;
  IF v_available < v_required OR (p_quote IS NULL AND v_available <= 0) THEN
    RETURN v_figures || jsonb_build_object('outcome', 'refused', 'key', v_key_json);
  END IF;

  IF p_reserve THEN
    INSERT INTO instances AS x (id, account_id, request_hash, provider, provider_name, name, status, gpu_type, gpu_count, spot,
      region, docker_image, warnings, quote_per_hour_micros, api_key_id)
    VALUES (p_id, p_account, p_hash, p_provider, p_provider_name, p_name, 'provisioning', p_gpu_type, p_gpu_count, p_spot,
      p_region, p_docker_image, p_warnings, p_quote, p_key_id)
    ON CONFLICT (id) DO UPDATE SET
      request_hash = excluded.request_hash, provider = excluded.provider, provider_name = excluded.provider_name,
      name = excluded.name, status = 'provisioning', gpu_type = excluded.gpu_type, gpu_count = excluded.gpu_count,
      spot = excluded.spot, region = excluded.region, docker_image = excluded.docker_image, warnings = excluded.warnings,
      quote_per_hour_micros = excluded.quote_per_hour_micros, api_key_id = excluded.api_key_id, provider_instance_id = NULL,
      provider_status = NULL, public_ip = NULL, ssh = NULL, ended_at = NULL, end_reason = NULL, lifecycle_warning = NULL,
      price_per_hour_micros = NULL, started_at = NULL, metered_through = NULL, created_at = now(), updated_at = now()
    WHERE x.status = 'failed';
  END IF;
  RETURN v_figures || jsonb_build_object('outcome', 'admitted', 'key', v_key_json);
END $$;
