-- Refunds of payment orders (CONTRACT C16 "Refunds"): one row per refund, keyed by the refund's own
-- transaction (typeTx 19 Refund, app_id set, currency = the order currency, amount, fee = the Refund fee;
-- wallet_from the merchant wallet, wallet_to the payer (Wallet) or the Treasury (Card)). Idempotent per
-- (app, external_id): the request hash tells a replay (same body) from a conflict (10060). Wallet and Card
-- refunds are created Finished (state_code 8, finished_at set); a Crypto one would start Pending (1).
-- The row is written in the same commit as the order's update (refunded amount, count, state 9/10) and
-- the refund's postings; its rows in a ledger commit are sql/rows/RefundRows.ts.
CREATE TABLE payment_refunds (
  tx_id            bigint PRIMARY KEY REFERENCES transactions (id),
  order_tx_id      bigint NOT NULL REFERENCES payment_orders (tx_id),
  app_id           bigint NOT NULL,
  external_id      text NOT NULL,
  request_hash     text NOT NULL,
  destination      text NOT NULL CHECK (destination IN ('Wallet', 'Card', 'Crypto')),
  currency         text NOT NULL,
  amount           numeric NOT NULL CHECK (amount > 0),
  fee              numeric NOT NULL CHECK (fee >= 0),
  profit_wallet    bigint NOT NULL,
  payout_amount    numeric NOT NULL CHECK (payout_amount >= 0),
  payout_currency  text NOT NULL,
  reason           text,
  refund_address   text,
  state_code       smallint NOT NULL CHECK (state_code IN (1, 8, 16)),
  created_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz,
  UNIQUE (app_id, external_id)
);
CREATE INDEX payment_refunds_order ON payment_refunds (order_tx_id, tx_id);

CREATE FUNCTION ledger_rows_payment_refund_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_refunds (tx_id, order_tx_id, app_id, external_id, request_hash, destination, currency, amount, fee,
      profit_wallet, payout_amount, payout_currency, reason, refund_address, state_code, finished_at)
    SELECT u.tx_id, u.order_tx_id, u.app_id, u.external_id, u.request_hash, u.destination, u.currency, u.amount, u.fee,
        u.profit_wallet, u.payout_amount, u.payout_currency, u.reason, u.refund_address, u.state_code,
        CASE WHEN u.state_code = 1 THEN NULL ELSE now() END
      FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::bigint[], p_cols[4]::text[], p_cols[5]::text[],
        p_cols[6]::text[], p_cols[7]::text[], p_cols[8]::numeric[], p_cols[9]::numeric[], p_cols[10]::bigint[],
        p_cols[11]::numeric[], p_cols[12]::text[], p_cols[13]::text[], p_cols[14]::text[], p_cols[15]::smallint[])
        AS u (tx_id, order_tx_id, app_id, external_id, request_hash, destination, currency, amount, fee, profit_wallet,
          payout_amount, payout_currency, reason, refund_address, state_code);
END
$$;
