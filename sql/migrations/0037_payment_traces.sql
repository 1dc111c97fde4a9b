-- One trace per payment (issue #28 item 3; src/platform/Tracing.ts): when traces are exported, an order's Create
-- commit keeps the W3C traceparent of its `payment.create` span here (row kind `payment_trace`,
-- sql/rows/PaymentTraceRows.ts). Every later message of the order's actor opens its span as a child of it, and
-- each webhook delivery of the order too, so one payment is one trace whichever requests, jobs and processes
-- carried it. Without tracing nothing is written. A separate table keeps payment_orders (and the webhook
-- snapshots taken from its rows) unchanged.
CREATE TABLE payment_traces (
  order_tx_id  bigint PRIMARY KEY REFERENCES payment_orders (tx_id),
  trace_parent text NOT NULL CHECK (trace_parent ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$')
);

CREATE FUNCTION ledger_rows_payment_trace(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_traces (order_tx_id, trace_parent)
    SELECT u.order_tx_id, u.trace_parent FROM unnest(p_cols[1]::bigint[], p_cols[2]::text[]) AS u (order_tx_id, trace_parent)
    ON CONFLICT (order_tx_id) DO NOTHING;
END
$$;
