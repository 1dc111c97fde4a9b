-- Payment orders (CONTRACT C16, issue #14): one row per order, keyed by the order's transaction (typeTx 20
-- PaymentOrder / 21 TransferOrder, app_id set, wallet_to the merchant wallet). The row is the engine's
-- OrderState (actors/payment/Order.ts) beside the transaction; its rows in a ledger commit are
-- sql/rows/PaymentRows.ts. Amounts are minor units (order amounts in `currency`, pay figures in `pay_currency`).
CREATE TABLE payment_orders (
  tx_id            bigint PRIMARY KEY REFERENCES transactions (id),
  app_id           bigint NOT NULL,
  external_id      text NOT NULL,
  request_hash     text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('PaymentOrder', 'TransferOrder')),
  -- sha256 of the code; a PaymentOrder's `P…` code is also kept in clear for payUrl, a TransferOrder's never.
  code_hash        bytea NOT NULL UNIQUE,
  code             text,
  merchant_wallet  bigint NOT NULL,
  state_code       smallint NOT NULL,
  currency         text NOT NULL,
  order_amount     numeric NOT NULL,
  terminal_id      bigint,
  method           text,
  pay_currency     text,
  pay_amount       numeric,
  fee              numeric NOT NULL DEFAULT 0,
  profit_wallet    bigint NOT NULL,
  rate             text,
  spread_pct       text,
  expires_at       timestamptz NOT NULL,
  paid_at          timestamptz,
  paid_amount      numeric NOT NULL DEFAULT 0,
  refunded_amount  numeric NOT NULL DEFAULT 0,
  payer_wallet_id  bigint,
  description      text,
  return_url_success text,
  return_url_fail  text,
  webhook_url      text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (app_id, external_id)
);

CREATE FUNCTION ledger_rows_payment_order_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_orders (tx_id, app_id, external_id, request_hash, kind, code_hash, code, merchant_wallet, state_code,
      currency, order_amount, fee, profit_wallet, expires_at, description, return_url_success, return_url_fail, webhook_url)
    SELECT * FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::text[], p_cols[4]::text[], p_cols[5]::text[],
      p_cols[6]::bytea[], p_cols[7]::text[], p_cols[8]::bigint[], p_cols[9]::smallint[], p_cols[10]::text[], p_cols[11]::numeric[],
      p_cols[12]::numeric[], p_cols[13]::bigint[], p_cols[14]::timestamptz[], p_cols[15]::text[], p_cols[16]::text[],
      p_cols[17]::text[], p_cols[18]::text[]);
END
$$;

-- An order's new state, applied only if the order is still in the state the actor read (`from_state`);
-- otherwise LC409 through ledger_raise_stale, which undoes the whole commit.
CREATE FUNCTION ledger_rows_payment_order_update(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_done bigint[];
BEGIN
  WITH done AS (
    UPDATE payment_orders AS o SET state_code = u.state_code, terminal_id = u.terminal_id, method = u.method,
        pay_currency = u.pay_currency, pay_amount = u.pay_amount, fee = u.fee, profit_wallet = u.profit_wallet,
        rate = u.rate, spread_pct = u.spread_pct, paid_amount = u.paid_amount, refunded_amount = u.refunded_amount,
        payer_wallet_id = u.payer_wallet_id,
        paid_at = CASE WHEN u.state_code = 8 AND o.paid_at IS NULL THEN now() ELSE o.paid_at END,
        updated_at = now()
      FROM unnest(p_cols[1]::bigint[], p_cols[2]::smallint[], p_cols[3]::smallint[], p_cols[4]::bigint[], p_cols[5]::text[],
        p_cols[6]::text[], p_cols[7]::numeric[], p_cols[8]::numeric[], p_cols[9]::bigint[], p_cols[10]::text[], p_cols[11]::text[],
        p_cols[12]::numeric[], p_cols[13]::numeric[], p_cols[14]::bigint[])
        AS u (tx_id, from_state, state_code, terminal_id, method, pay_currency, pay_amount, fee, profit_wallet, rate,
          spread_pct, paid_amount, refunded_amount, payer_wallet_id)
      WHERE o.tx_id = u.tx_id AND o.state_code = u.from_state
      RETURNING o.tx_id)
  SELECT array_agg(done.tx_id) INTO v_done FROM done;
  PERFORM ledger_raise_stale(p_cols[1]::bigint[], v_done);
END
$$;
