-- C19 §4: step one of an action that Require2FA makes two-step but that reserves nothing
-- (set_security off, create_tx_code 11/12, apply_code paying, pay_internal). Step one changes
-- nothing but this row: which wallet asked for which action with which parameters (their hash), and
-- how step two proves the second factor. Step two takes the row (one use) and then runs the action.
CREATE TABLE second_factor_steps (
  tx_id          bigint PRIMARY KEY,
  wallet_id      bigint NOT NULL REFERENCES wallets (id),
  action         text NOT NULL,
  params_hash    bytea NOT NULL,
  channel        text NOT NULL CHECK (channel IN ('Code', 'Sign')),
  code_hash      bytea,
  attempts_left  smallint NOT NULL CHECK (attempts_left >= 0),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX second_factor_steps_wallet ON second_factor_steps (wallet_id, expires_at);
