-- Refunds of crypto-paid payment orders (CONTRACT C16 "Refunds", destination Crypto; docs/PAYMENTS.md
-- "Refunds over HTTP"): the C15 withdrawal (an Outcome, typeTx 2) that sends a Pending refund to its
-- refundAddress, linked to the refund (row kind refund_withdrawal, written in the refund_payment commit),
-- and the refund's settlement (row kind payment_refund_settle: Pending → Finished 8 / Failed 16 with
-- finished_at), written where C15 settles that withdrawal (chain finality, tx_send_report failure, cancel
-- of a Queued one) in the same commit, through the WithdrawalSettlement hook.
CREATE TABLE refund_withdrawals (
  withdrawal_tx_id bigint PRIMARY KEY REFERENCES transactions (id),
  refund_tx_id     bigint NOT NULL UNIQUE REFERENCES payment_refunds (tx_id)
);

CREATE FUNCTION ledger_rows_refund_withdrawal(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO refund_withdrawals (withdrawal_tx_id, refund_tx_id)
    SELECT * FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[]);
END
$$;

-- A Pending refund settled: applied only while it is still Pending, otherwise LC409 (ledger_raise_stale)
-- undoes the whole commit, so a refund settles once.
CREATE FUNCTION ledger_rows_payment_refund_settle(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_done bigint[];
BEGIN
  WITH done AS (
    UPDATE payment_refunds AS r SET state_code = u.state_code, finished_at = now()
      FROM unnest(p_cols[1]::bigint[], p_cols[2]::smallint[]) AS u (tx_id, state_code)
      WHERE r.tx_id = u.tx_id AND r.state_code = 1
      RETURNING r.tx_id)
  SELECT array_agg(done.tx_id) INTO v_done FROM done;
  PERFORM ledger_raise_stale(p_cols[1]::bigint[], v_done);
END
$$;
