-- Crypto payouts (CONTRACT C16 pay_transfer on a Withdraw crypto terminal, docs/PAYMENTS.md "Payout
-- orders"): the C15 withdrawal (an Outcome, typeTx 2) that pays a TransferOrder's reserve out, linked to
-- its order. Written in the pay_transfer commit (row kind payout_withdrawal, sql/rows/PayoutRows.ts); read
-- where C15 settles withdrawals (chain finality, tx_send_report failure, cancel of a Queued one) so the
-- order's Processing → Paid / Failed rides on the same commit.
CREATE TABLE payout_withdrawals (
  withdrawal_tx_id bigint PRIMARY KEY REFERENCES transactions (id),
  order_tx_id      bigint NOT NULL UNIQUE REFERENCES payment_orders (tx_id)
);

CREATE FUNCTION ledger_rows_payout_withdrawal(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payout_withdrawals (withdrawal_tx_id, order_tx_id)
    SELECT * FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[]);
END
$$;
