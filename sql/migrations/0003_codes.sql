-- Transfer codes, invoices and escrow (typeTx 11-14) and room-join codes. A code is a bearer
-- string; only its hash is stored, and it names exactly one transaction (no other operation).
CREATE TABLE codes (
  tx_id          bigint PRIMARY KEY REFERENCES transactions (id),
  code_hash      bytea NOT NULL UNIQUE,
  kind           text NOT NULL DEFAULT 'transfer' CHECK (kind IN ('transfer', 'room')),
  creator        bigint NOT NULL,
  counterparty   bigint,
  expires_at     timestamptz,
  partner_info   text,
  room_key       bigint
);
CREATE INDEX codes_creator ON codes (creator);

-- Client nonces of apply_code: unique per applying wallet (SPEC 10130).
CREATE TABLE client_nonces (
  wallet_id     bigint NOT NULL,
  client_nonce  bigint NOT NULL,
  tx_id         bigint NOT NULL,
  PRIMARY KEY (wallet_id, client_nonce)
);

-- The terminal a transaction went through (deposits and withdrawals; NULL for internal ledger
-- operations), for the journal's networks / tokenNetworks filters.
ALTER TABLE transactions ADD COLUMN terminal_id bigint
