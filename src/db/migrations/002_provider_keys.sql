-- One provider key per (account, provider), encrypted at rest (AES-256-GCM; see src/domain/key-vault.ts).
CREATE TABLE provider_keys (
  account_id         text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  provider           text NOT NULL CHECK (provider IN ('runpod', 'vastai', 'lambda')),
  display_label      text NOT NULL,
  key_hint           text NOT NULL,
  ciphertext         bytea NOT NULL,
  iv                 bytea NOT NULL,
  auth_tag           bytea NOT NULL,
  encryption_key_id  text NOT NULL,
  status             text NOT NULL DEFAULT 'unverified' CHECK (status IN ('unverified', 'valid', 'invalid')),
  last_verified_at   timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, provider)
);
