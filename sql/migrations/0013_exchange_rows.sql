-- The exchange's rows in a ledger commit (sql/rows/ExchangeRows.ts): orders placed, order progress
-- (conditional on the figures the room last knew: a stale room's commit fails with LC409), trades.
CREATE FUNCTION ledger_rows_order_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO orders (id, wallet_id, room_key, base, quote, side, order_type, price_ticks, quantity_lots, remaining_lots,
      from_currency, to_currency, from_amount, to_amount, locked, state, tag)
    SELECT o.id, o.wallet_id, o.room_key, o.base, o.quote, o.side, o.order_type, o.price_ticks, o.quantity_lots, o.quantity_lots,
      o.from_currency, o.to_currency, o.from_amount, o.to_amount, o.locked, o.state, o.tag
    FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::bigint[], p_cols[4]::text[], p_cols[5]::text[],
      p_cols[6]::smallint[], p_cols[7]::smallint[], p_cols[8]::bigint[], p_cols[9]::bigint[], p_cols[10]::text[], p_cols[11]::text[],
      p_cols[12]::numeric[], p_cols[13]::numeric[], p_cols[14]::numeric[], p_cols[15]::smallint[], p_cols[16]::text[])
      AS o (id, wallet_id, room_key, base, quote, side, order_type, price_ticks, quantity_lots, from_currency, to_currency,
        from_amount, to_amount, locked, state, tag);
END
$$;

CREATE FUNCTION ledger_rows_order_update(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_done bigint[];
BEGIN
  WITH done AS (
    UPDATE orders AS o SET remaining_lots = u.remaining, locked = u.locked, given = u.given,
        received = u.received, fee = u.fee, state = u.state, seq = COALESCE(u.seq, o.seq), updated_at = now()
      FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::numeric[], p_cols[4]::numeric[], p_cols[5]::numeric[],
        p_cols[6]::numeric[], p_cols[7]::smallint[], p_cols[8]::bigint[], p_cols[9]::bigint[], p_cols[10]::bigint[])
        AS u (id, remaining, locked, given, received, fee, state, seq, prev_remaining, prev_seq)
      WHERE o.id = u.id AND o.state = 1 AND o.remaining_lots = u.prev_remaining AND o.seq IS NOT DISTINCT FROM u.prev_seq
      RETURNING o.id)
  SELECT array_agg(done.id) INTO v_done FROM done;
  PERFORM ledger_raise_stale(p_cols[1]::bigint[], v_done);
END
$$;

CREATE FUNCTION ledger_rows_trade_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO trades (id, room_key, base, quote, price_ticks, price, amount, total, taker_order, maker_order, taker_side)
    SELECT * FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::text[], p_cols[4]::text[], p_cols[5]::bigint[],
      p_cols[6]::numeric[], p_cols[7]::numeric[], p_cols[8]::numeric[], p_cols[9]::bigint[], p_cols[10]::bigint[],
      p_cols[11]::smallint[]);
END
$$;
