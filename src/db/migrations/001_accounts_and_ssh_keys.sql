-- Accounts, their service keys (only a SHA-256 hash is stored) and SSH keys.
CREATE TABLE accounts (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE service_keys (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key_hash    text NOT NULL UNIQUE,
  key_prefix  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX service_keys_account_idx ON service_keys (account_id);

CREATE TABLE ssh_keys (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name         text NOT NULL,
  public_key   text NOT NULL,
  fingerprint  text NOT NULL,
  key_type     text NOT NULL,
  is_default   boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ssh_keys_account_name_key UNIQUE (account_id, name),
  CONSTRAINT ssh_keys_account_fingerprint_key UNIQUE (account_id, fingerprint)
);
-- At most one default per account, enforced by the database whatever the application does.
CREATE UNIQUE INDEX ssh_keys_one_default_idx ON ssh_keys (account_id) WHERE is_default;
CREATE INDEX ssh_keys_account_created_idx ON ssh_keys (account_id, created_at DESC, id DESC);
