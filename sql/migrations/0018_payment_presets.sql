-- A merchant's preselection on a payment order (CONTRACT C16 put_payment_order `terminalId?`, `payAmount?`):
-- the terminal the payer must use and, when given, the fixed price in that terminal's currency (minor units
-- of `preset_pay_currency`). Written once, in the order's Create commit, by the row kind
-- `payment_order_preset` (sql/rows/PaymentPresetRows.ts), after `payment_order_insert`; never changed.
-- The engine's snapshot columns (terminal_id, pay_amount, …) stay NULL until a start locks a terminal.
ALTER TABLE payment_orders
  ADD COLUMN preset_terminal_id  bigint,
  ADD COLUMN preset_pay_currency text,
  ADD COLUMN preset_pay_amount   numeric;

CREATE FUNCTION ledger_rows_payment_order_preset(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_done bigint[];
BEGIN
  WITH done AS (
    UPDATE payment_orders AS o SET preset_terminal_id = u.terminal_id, preset_pay_currency = u.pay_currency,
        preset_pay_amount = u.pay_amount
      FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::text[], p_cols[4]::numeric[])
        AS u (tx_id, terminal_id, pay_currency, pay_amount)
      WHERE o.tx_id = u.tx_id AND o.preset_terminal_id IS NULL
      RETURNING o.tx_id)
  SELECT array_agg(done.tx_id) INTO v_done FROM done;
  -- Every preset row names an order inserted in the same commit; anything else undoes the commit.
  PERFORM ledger_raise_stale(p_cols[1]::bigint[], v_done);
END
$$;
