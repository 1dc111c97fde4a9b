-- Federation (CONTRACT C18, docs/FEDERATION.md): partner records, and the link of each of our
-- federation transactions (FederationCredit 26, FederationTransfer 27) to the partner's order.
-- The system wallet FederationWallet -16 exists since 0001_core.sql.

-- A partner deployment: the merchant credentials of our app on it (outbound_pkey) and that app's
-- webhook secret (webhook_secret, to verify the partner's webhooks). Neither is ever answered or logged.
CREATE TABLE federation_partners (
  partner_id       text PRIMARY KEY CHECK (partner_id ~ '^[A-Za-z0-9_-]{1,64}$'),
  name             text NOT NULL,
  base_url         text NOT NULL,
  outbound_app_id  bigint NOT NULL,
  outbound_pkey    text NOT NULL,
  webhook_secret   text NOT NULL,
  capabilities     text[] NOT NULL,
  currencies       text[],
  enabled          boolean NOT NULL DEFAULT true,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- One row per federation transaction of ours, written before its ledger commit: a row whose
-- transaction never committed is ignored by every read (they join transactions). kind 1: a partner
-- order (remote_id its order id on the partner), 2: a federation_credit without an order (remote_id the
-- partner's reference), 3: a partner transfer. The transaction's state is the one truth of its outcome:
-- every path moves it by one conditional transition (exactly once).
CREATE TABLE federation_links (
  tx_id        bigint PRIMARY KEY,
  partner_id   text NOT NULL,
  kind         smallint NOT NULL CHECK (kind IN (1, 2, 3)),
  remote_id    text,
  remote_code  text,
  pay_url      text,
  expires_at   timestamptz,
  wallet_id    bigint NOT NULL,
  currency     text NOT NULL,
  amount       numeric(78,0) NOT NULL CHECK (amount > 0),
  fee          numeric(78,0) NOT NULL DEFAULT 0,
  profit_wallet bigint,
  tag          text,
  recipient    text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX federation_links_remote ON federation_links (partner_id, remote_id) WHERE remote_id IS NOT NULL;

-- Chat events taken once per (partner, eventId).
CREATE TABLE federation_chat_seen (
  partner_id  text NOT NULL,
  event_id    text NOT NULL,
  PRIMARY KEY (partner_id, event_id)
);
