-- Pricing: every refresh is recorded; each provider's last good offers are kept (and used until they are an
-- hour old when the provider fails); the assembled snapshot the API serves; and one history row per
-- (refresh, gpu, provider, spot) with the lowest price.
CREATE TABLE pricing_refreshes (
  id           bigserial PRIMARY KEY,
  refreshed_at timestamptz NOT NULL DEFAULT now(),
  outcome      jsonb NOT NULL   -- {provider: {ok, offers?, error?}}
);

CREATE TABLE pricing_offers (
  provider               text NOT NULL,
  gpu_type               text NOT NULL,
  spot                   boolean NOT NULL,
  region                 text,
  price_per_hour_micros  bigint NOT NULL CHECK (price_per_hour_micros >= 0),
  availability           integer NOT NULL CHECK (availability >= 0),
  refresh_id             bigint NOT NULL REFERENCES pricing_refreshes (id) ON DELETE CASCADE,
  fetched_at             timestamptz NOT NULL
);
CREATE INDEX pricing_offers_provider_idx ON pricing_offers (provider, refresh_id);

CREATE TABLE pricing_snapshots (
  id          bigserial PRIMARY KEY,
  refresh_id  bigint NOT NULL REFERENCES pricing_refreshes (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  body        jsonb NOT NULL
);

CREATE TABLE pricing_history (
  refresh_id            bigint NOT NULL REFERENCES pricing_refreshes (id) ON DELETE CASCADE,
  recorded_at           timestamptz NOT NULL,
  gpu_type              text NOT NULL,
  provider              text NOT NULL,
  spot                  boolean NOT NULL,
  min_price_per_hour_micros bigint NOT NULL,
  PRIMARY KEY (refresh_id, gpu_type, provider, spot)
);
CREATE INDEX pricing_history_gpu_time_idx ON pricing_history (gpu_type, recorded_at);
