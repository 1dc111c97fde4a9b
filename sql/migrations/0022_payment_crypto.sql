-- Paying a payment order by crypto (CONTRACT C16 "Orders and money", C15 purpose-1 addresses).
-- An order's deposit addresses: a purpose-1 record of crypto_addresses (a derived address of the
-- merchant wallet, or on a memo network a memo record with the order's own memo) reserved for one
-- order on one terminal. Stored with the address in the allocation's SQL transaction; `detached` by
-- cancel_crypto (row kind payment_order_address_detach, in the order's commit); the payer's claimed
-- hash by confirm_crypto (payment_order_address_claim). At most one attached address per order and
-- terminal.
CREATE TABLE payment_order_addresses (
  address_id       bigint PRIMARY KEY REFERENCES crypto_addresses (id),
  order_tx_id      bigint NOT NULL REFERENCES payment_orders (tx_id),
  terminal_id      bigint NOT NULL REFERENCES terminals (id),
  detached         boolean NOT NULL DEFAULT false,
  claimed_tx_hash  text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX payment_order_addresses_attached ON payment_order_addresses (order_tx_id, terminal_id) WHERE NOT detached;

-- The Incomes (typeTx 1) an order took as its payment: their money is booked on the order's
-- transaction by the payment engine, not by the Income (row kind payment_order_income, in the
-- tx_list_push commit that saw the item).
CREATE TABLE payment_order_incomes (
  income_tx_id  bigint PRIMARY KEY REFERENCES transactions (id),
  order_tx_id   bigint NOT NULL REFERENCES payment_orders (tx_id),
  amount        numeric(78,0) NOT NULL CHECK (amount > 0)
);
CREATE INDEX payment_order_incomes_order ON payment_order_incomes (order_tx_id);

CREATE FUNCTION ledger_rows_payment_order_income(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_order_incomes (income_tx_id, order_tx_id, amount)
    SELECT * FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::numeric[]);
END
$$;

-- cancel_crypto: every attached address of the order is detached (income to it is then a plain Income).
CREATE FUNCTION ledger_rows_payment_order_address_detach(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE payment_order_addresses SET detached = true
    WHERE order_tx_id = ANY (p_cols[1]::bigint[]) AND NOT detached;
END
$$;

-- confirm_crypto: the payer's claimed hash on the order's attached address of the terminal; none
-- attached (cancel_crypto won a race) undoes the batch (LC409).
CREATE FUNCTION ledger_rows_payment_order_address_claim(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_done bigint[];
BEGIN
  WITH done AS (
    UPDATE payment_order_addresses AS a SET claimed_tx_hash = u.tx_hash
      FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::text[]) AS u (order_tx_id, terminal_id, tx_hash)
      WHERE a.order_tx_id = u.order_tx_id AND a.terminal_id = u.terminal_id AND NOT a.detached
      RETURNING a.order_tx_id)
  SELECT array_agg(done.order_tx_id) INTO v_done FROM done;
  PERFORM ledger_raise_stale(p_cols[1]::bigint[], v_done);
END
$$;
