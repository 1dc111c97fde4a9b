-- The rest of the engine's OrderState (actors/payment/Order.ts) on the order row, so refunds, card
-- sessions, crypto incomes and payouts persist through the one conditional update: accepted refunds
-- still pending and their count, whether a card session is Pending, Σ crypto incomes seen and final
-- (payCurrency), and a payout's recipient and meta (pay_transfer). `version` counts the row's updates: a
-- refund or an income leaves the state code as it is, so the update is conditional on both (two
-- processes' actors of one order cannot both apply a change read from the same version).
ALTER TABLE payment_orders
  ADD COLUMN pending_refunds numeric NOT NULL DEFAULT 0,
  ADD COLUMN refund_count integer NOT NULL DEFAULT 0,
  ADD COLUMN card_session_pending boolean NOT NULL DEFAULT false,
  ADD COLUMN income_seen numeric NOT NULL DEFAULT 0,
  ADD COLUMN income_final numeric NOT NULL DEFAULT 0,
  ADD COLUMN recipient text,
  ADD COLUMN meta jsonb,
  ADD COLUMN version bigint NOT NULL DEFAULT 0;

-- An order's new state, applied only if the order is still in the state the actor read (`from_state`);
-- and version; otherwise LC409 through ledger_raise_stale, which undoes the whole commit. Writes every OrderState field.
CREATE OR REPLACE FUNCTION ledger_rows_payment_order_update(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_done bigint[];
BEGIN
  WITH done AS (
    UPDATE payment_orders AS o SET state_code = u.state_code, terminal_id = u.terminal_id, method = u.method,
        pay_currency = u.pay_currency, pay_amount = u.pay_amount, fee = u.fee, profit_wallet = u.profit_wallet,
        rate = u.rate, spread_pct = u.spread_pct, paid_amount = u.paid_amount, refunded_amount = u.refunded_amount,
        payer_wallet_id = u.payer_wallet_id, pending_refunds = u.pending_refunds, refund_count = u.refund_count,
        card_session_pending = u.card_session_pending, income_seen = u.income_seen, income_final = u.income_final,
        recipient = coalesce(u.recipient, o.recipient), meta = coalesce(u.meta, o.meta),
        paid_at = CASE WHEN u.state_code = 8 AND o.paid_at IS NULL THEN now() ELSE o.paid_at END,
        version = o.version + 1, updated_at = now()
      FROM unnest(p_cols[1]::bigint[], p_cols[2]::smallint[], p_cols[3]::smallint[], p_cols[4]::bigint[], p_cols[5]::text[],
        p_cols[6]::text[], p_cols[7]::numeric[], p_cols[8]::numeric[], p_cols[9]::bigint[], p_cols[10]::text[], p_cols[11]::text[],
        p_cols[12]::numeric[], p_cols[13]::numeric[], p_cols[14]::bigint[], p_cols[15]::numeric[], p_cols[16]::integer[],
        p_cols[17]::boolean[], p_cols[18]::numeric[], p_cols[19]::numeric[], p_cols[20]::text[], p_cols[21]::jsonb[], p_cols[22]::bigint[])
        AS u (tx_id, from_state, state_code, terminal_id, method, pay_currency, pay_amount, fee, profit_wallet, rate,
          spread_pct, paid_amount, refunded_amount, payer_wallet_id, pending_refunds, refund_count, card_session_pending,
          income_seen, income_final, recipient, meta, from_version)
      WHERE o.tx_id = u.tx_id AND o.state_code = u.from_state AND o.version = u.from_version
      RETURNING o.tx_id)
  SELECT array_agg(done.tx_id) INTO v_done FROM done;
  PERFORM ledger_raise_stale(p_cols[1]::bigint[], v_done);
END
$$;
