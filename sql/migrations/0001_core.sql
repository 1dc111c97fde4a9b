-- Core schema: clients and wallets, credentials, reference data, and the double-entry ledger.
-- Money is NUMERIC(78,0) in minor units of its currency: exact, and wide enough for 18-decimal tokens.

CREATE TABLE currencies (
  code              text PRIMARY KEY,
  name              text NOT NULL,
  decimals          smallint NOT NULL CHECK (decimals BETWEEN 0 AND 18),
  exchange_enabled  boolean NOT NULL DEFAULT true,
  is_base           boolean NOT NULL DEFAULT false,
  sort_order        integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX currencies_one_base ON currencies (is_base) WHERE is_base;

CREATE TABLE clients (
  id            bigint PRIMARY KEY,
  crm_id        text UNIQUE,
  phone         text UNIQUE,
  messenger_id  text UNIQUE,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE SEQUENCE wallet_ids START 1000001;

CREATE TABLE wallets (
  id               bigint PRIMARY KEY,
  client_id        bigint NOT NULL,
  project          integer NOT NULL DEFAULT 0,
  wallet_group     smallint NOT NULL DEFAULT 0 CHECK (wallet_group BETWEEN 0 AND 63),
  flags            integer NOT NULL DEFAULT 0 CHECK (flags BETWEEN 0 AND 31),
  name             text NOT NULL DEFAULT '' CHECK (length(name) <= 100),
  sort_order       integer NOT NULL DEFAULT 0,
  max_addr_count   integer NOT NULL DEFAULT 10,
  address          text NOT NULL UNIQUE,
  timetick_update  bigint NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wallets_client ON wallets (client_id, sort_order, id);
-- One IsDefault (16) wallet per owner, enforced by the database as well as by the service.
CREATE UNIQUE INDEX wallets_one_default ON wallets (client_id) WHERE (flags & 16) <> 0;

-- System wallets (CONTRACT C6): negative ids, may go negative.
INSERT INTO wallets (id, client_id, name, address, timetick_update) VALUES
  (-1, 0, 'Treasury', 'W-TREASURY', 0),
  (-2, 0, 'Fees', 'W-FEES', 0),
  (-3, 0, 'Broker', 'W-BROKER', 0),
  (-16, 0, 'FederationWallet', 'W-FEDERATION', 0);

CREATE TABLE sessions (
  sid_hash    bytea PRIMARY KEY,
  wallet_id   bigint NOT NULL REFERENCES wallets (id),
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE SEQUENCE app_ids START 5001;
CREATE TABLE apps (
  id          bigint PRIMARY KEY,
  wallet_id   bigint NOT NULL REFERENCES wallets (id),
  name        text NOT NULL,
  pkey_hash   bytea NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE service_keys (
  key_hash    bytea PRIMARY KEY,
  label       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE terminals (
  id                         bigserial PRIMARY KEY,
  type_network               integer NOT NULL,
  type_contract              integer NOT NULL,
  currency                   text REFERENCES currencies (code),  -- NULL only for the built-in internal terminal (any currency)
  decimals                   smallint NOT NULL DEFAULT 0,
  address_contract           text,
  name                       text,
  tag                        text,
  priority                   integer,
  network_fee                numeric,
  display_name               text,
  icon_code                  text,
  flags                      integer NOT NULL DEFAULT 0,
  default_hot_address        text,
  default_system_wallet_id   bigint,
  wallet_groups              integer[] NOT NULL DEFAULT '{}',
  last_block                 bigint,
  built_in                   boolean NOT NULL DEFAULT false
);
-- SPEC 2.19.0: one Base (type_contract 0) terminal per network.
CREATE UNIQUE INDEX terminals_one_base ON terminals (type_network) WHERE type_contract = 0 AND NOT built_in;

CREATE TABLE rates (
  from_currency  text NOT NULL,
  to_currency    text NOT NULL,
  rate           numeric NOT NULL CHECK (rate > 0),
  source         text NOT NULL DEFAULT 'reference',
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (from_currency, to_currency)
);

CREATE TABLE tariffs (
  id                 bigserial PRIMARY KEY,
  tx_class           text NOT NULL,
  currency           text NOT NULL,
  wallet_group       smallint,
  type_tx            smallint,
  fee_fixed          numeric NOT NULL DEFAULT 0 CHECK (fee_fixed >= 0),
  fee_percent        numeric NOT NULL DEFAULT 0 CHECK (fee_percent >= 0 AND fee_percent <= 100),
  min_amount         numeric,
  max_amount         numeric,
  profit_wallet_id   bigint
);

-- The ledger --------------------------------------------------------------------------------

-- Balance buckets per wallet and currency. User wallets (id > 0) never go negative: the wallet
-- actor checks first, and these constraints back it even against a split-brain writer.
CREATE TABLE balances (
  wallet_id     bigint NOT NULL REFERENCES wallets (id),
  currency      text NOT NULL REFERENCES currencies (code),
  free          numeric(78,0) NOT NULL DEFAULT 0,
  lock_out      numeric(78,0) NOT NULL DEFAULT 0,
  lock_in       numeric(78,0) NOT NULL DEFAULT 0,
  lock_orders   numeric(78,0) NOT NULL DEFAULT 0,
  PRIMARY KEY (wallet_id, currency),
  CONSTRAINT user_balance_not_negative CHECK (
    wallet_id < 0 OR (free >= 0 AND lock_out >= 0 AND lock_in >= 0 AND lock_orders >= 0)
  )
);

-- Update ticks are allocated from this one row inside the committing transaction, as its last
-- statement: the row lock orders commits, so ticks are gapless in commit order (a reader never
-- sees tick n+1 without tick n), across processes too.
CREATE TABLE journal_clock (
  id    boolean PRIMARY KEY DEFAULT true CHECK (id),
  tick  bigint NOT NULL
);
INSERT INTO journal_clock (id, tick) VALUES (true, 0);

CREATE TABLE transactions (
  id             bigint PRIMARY KEY,
  id_update      bigint NOT NULL UNIQUE,
  type_tx        smallint NOT NULL,
  tx_state       smallint NOT NULL,
  wallet_from    bigint NOT NULL,
  wallet_to      bigint NOT NULL,
  currency       text NOT NULL REFERENCES currencies (code),
  amount         numeric(78,0) NOT NULL CHECK (amount >= 0),
  fee            numeric(78,0) NOT NULL DEFAULT 0 CHECK (fee >= 0),
  tag            text,
  app_id         bigint,
  external_id    text UNIQUE,
  request_hash   text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX transactions_from ON transactions (wallet_from, id_update);
CREATE INDEX transactions_to ON transactions (wallet_to, id_update);
CREATE INDEX transactions_app ON transactions (app_id, id_update) WHERE app_id IS NOT NULL;

-- Bucket codes: 0 free, 1 lock_out, 2 lock_in, 3 lock_orders. Per transaction and currency the
-- deltas sum to zero (checked by the writer before it commits, and by the tests after).
CREATE TABLE postings (
  tx_id      bigint NOT NULL REFERENCES transactions (id),
  seq        smallint NOT NULL,
  wallet_id  bigint NOT NULL,
  currency   text NOT NULL,
  bucket     smallint NOT NULL CHECK (bucket BETWEEN 0 AND 3),
  delta      numeric(78,0) NOT NULL CHECK (delta <> 0),
  PRIMARY KEY (tx_id, seq)
);
CREATE INDEX postings_wallet ON postings (wallet_id, currency);

CREATE TABLE investments (
  timetick         bigint PRIMARY KEY,
  wallet_id        bigint NOT NULL REFERENCES wallets (id),
  currency         text NOT NULL REFERENCES currencies (code),
  investment_type  smallint NOT NULL,
  state            smallint NOT NULL,
  flags            smallint NOT NULL DEFAULT 0,
  amount           numeric(78,0) NOT NULL CHECK (amount >= 0),
  profit           numeric(78,0) NOT NULL DEFAULT 0,
  rate_pct         numeric NOT NULL,
  date_end         timestamptz NOT NULL,
  tag              text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX investments_wallet ON investments (wallet_id, created_at);

CREATE SEQUENCE runner_ids;
