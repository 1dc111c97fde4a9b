-- Two-step transfers: client nonces, confirmations (2FA), signing keys, and the events feed.

ALTER TABLE transactions ADD COLUMN client_nonce bigint;
-- A client nonce is unique per sending wallet (SPEC 10130 NonceExists).
CREATE UNIQUE INDEX transactions_nonce ON transactions (wallet_from, client_nonce) WHERE client_nonce IS NOT NULL;
-- The wallet that received the fee (get_profit_transactions).
ALTER TABLE transactions ADD COLUMN profit_wallet bigint;
CREATE INDEX transactions_profit ON transactions (profit_wallet, id_update) WHERE profit_wallet IS NOT NULL;

-- The pending second step of a two-step operation. The code is stored as a hash; attempts and
-- expiry bound guessing. Deleted when the transaction settles or is cancelled.
CREATE TABLE confirmations (
  tx_id          bigint PRIMARY KEY REFERENCES transactions (id),
  wallet_id      bigint NOT NULL,
  channel        text NOT NULL CHECK (channel IN ('Inline', 'Code', 'Sign')),
  code_hash      bytea,
  attempts_left  smallint NOT NULL CHECK (attempts_left >= 0),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX confirmations_expiry ON confirmations (expires_at);

-- Ed25519 public keys a wallet registered for the Fido2Key channel (private register_key).
CREATE TABLE signing_keys (
  wallet_id   bigint NOT NULL REFERENCES wallets (id),
  public_key  bytea NOT NULL CHECK (length(public_key) = 32),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (wallet_id, public_key)
);

-- Notifications for trusted services (private `events`). Ids are journal ticks allocated in the
-- committing batch, so the feed is gapless in commit order like the journal.
CREATE TABLE events (
  id          bigint PRIMARY KEY,
  kind        text NOT NULL,
  wallet_id   bigint NOT NULL,
  payload     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- A transaction may be posted to more than once (reserve, then settle or release): postings are
-- keyed by the tick of the operation that wrote them.
ALTER TABLE postings ADD COLUMN op_tick bigint NOT NULL DEFAULT 0;
ALTER TABLE postings DROP CONSTRAINT postings_pkey;
ALTER TABLE postings ADD PRIMARY KEY (tx_id, op_tick, seq);
