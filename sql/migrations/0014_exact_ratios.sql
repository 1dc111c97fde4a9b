-- Exact ratios (CONTRACT C14 "Same price, same trade"): an order's limit price is the exact ratio of
-- its own amounts, price_num / price_den quote units per lot, reduced (actors/room/Ratio.ts). A quote
-- unit is 10^-LEAST(quote decimals, 8) quote, a lot 10^-LEAST(base decimals, 8) base. price_ticks
-- stays as the ratio rounded to a tick (sells up, buys down) for rates' mid prices only.
ALTER TABLE orders ADD COLUMN price_num numeric(78,0);
ALTER TABLE orders ADD COLUMN price_den numeric(78,0);

-- Rows of limit orders placed before: their ratio from their amounts (a sell gives quantity_lots for
-- to_amount, a buy gives from_amount for to_amount in lots), reduced.
UPDATE orders o SET price_num = r.n / gcd(r.n, r.d), price_den = r.d / gcd(r.n, r.d)
  FROM (
    SELECT o2.id,
      trunc(CASE WHEN o2.side = 1 THEN o2.to_amount ELSE o2.from_amount END / 10::numeric ^ (q.decimals - LEAST(q.decimals, 8)))::numeric(78,0) AS n,
      CASE WHEN o2.side = 1 THEN o2.quantity_lots::numeric
        ELSE trunc(o2.to_amount / 10::numeric ^ (b.decimals - LEAST(b.decimals, 8)))::numeric(78,0) END AS d
    FROM orders o2 JOIN currencies q ON q.code = o2.quote JOIN currencies b ON b.code = o2.base
    WHERE o2.order_type IN (1, 2) AND o2.to_amount IS NOT NULL) r
  WHERE o.id = r.id AND r.n > 0 AND r.d > 0;

-- The trade's price is the maker's exact ratio; `price` keeps it in quote per base to 30 significant
-- digits (shown rounded to 12).
ALTER TABLE trades ADD COLUMN price_num numeric(78,0);
ALTER TABLE trades ADD COLUMN price_den numeric(78,0);

DROP FUNCTION ledger_rows_order_insert(bigint, text[]);
CREATE FUNCTION ledger_rows_order_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO orders (id, wallet_id, room_key, base, quote, side, order_type, price_ticks, quantity_lots, remaining_lots,
      from_currency, to_currency, from_amount, to_amount, locked, state, tag, price_num, price_den)
    SELECT o.id, o.wallet_id, o.room_key, o.base, o.quote, o.side, o.order_type, o.price_ticks, o.quantity_lots, o.quantity_lots,
      o.from_currency, o.to_currency, o.from_amount, o.to_amount, o.locked, o.state, o.tag, o.price_num, o.price_den
    FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::bigint[], p_cols[4]::text[], p_cols[5]::text[],
      p_cols[6]::smallint[], p_cols[7]::smallint[], p_cols[8]::bigint[], p_cols[9]::bigint[], p_cols[10]::text[], p_cols[11]::text[],
      p_cols[12]::numeric[], p_cols[13]::numeric[], p_cols[14]::numeric[], p_cols[15]::smallint[], p_cols[16]::text[],
      p_cols[17]::numeric[], p_cols[18]::numeric[])
      AS o (id, wallet_id, room_key, base, quote, side, order_type, price_ticks, quantity_lots, from_currency, to_currency,
        from_amount, to_amount, locked, state, tag, price_num, price_den);
END
$$;

DROP FUNCTION ledger_rows_trade_insert(bigint, text[]);
CREATE FUNCTION ledger_rows_trade_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO trades (id, room_key, base, quote, price_ticks, price, amount, total, taker_order, maker_order, taker_side, price_num, price_den)
    SELECT * FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::text[], p_cols[4]::text[], p_cols[5]::bigint[],
      p_cols[6]::numeric[], p_cols[7]::numeric[], p_cols[8]::numeric[], p_cols[9]::bigint[], p_cols[10]::bigint[],
      p_cols[11]::smallint[], p_cols[12]::numeric[], p_cols[13]::numeric[]);
END
$$;
