-- One ledger batch in one statement. The writer used to send eleven or so statements per batch in
-- a transaction, each a round trip that waited on the Node event loop between them; this function
-- runs the same statements server-side, so a batch is one call (its own transaction: autocommit,
-- all or nothing) and one round trip. Each group of rows arrives as a text[] of PostgreSQL array
-- literals, one per column (NULL when the batch has none), built by sql/LedgerCommit.ts. Ticks: the clock row is updated first (its row lock orders whole batches,
-- so ticks stay gapless in commit order) and rows carry offsets from the batch's first tick.
-- A conditional transition or order update that finds its row moved on raises SQLSTATE LC409 with
-- the stale ids ("stale rows: 1,2"), which undoes the whole batch; the writer then retries its
-- operations one by one, as with any failure.
CREATE FUNCTION ledger_raise_stale(p_asked bigint[], p_done bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_stale bigint[];
BEGIN
  SELECT array_agg(w.id) INTO v_stale FROM unnest(p_asked) AS w (id) WHERE w.id <> ALL (COALESCE(p_done, '{}'));
  IF v_stale IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'LC409', MESSAGE = 'stale rows: ' || array_to_string(v_stale, ',');
  END IF;
END
$$;

CREATE FUNCTION ledger_commit(
  p_parts integer, p_now_micros bigint, p_channel text,
  p_tx text[], p_tr text[], p_po text[], p_ba text[], p_co text[], p_dr text[], p_ev text[],
  p_cd text[], p_bd text[], p_nc text[], p_oi text[], p_ou text[], p_trd text[]
) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_first bigint;
  last_tick bigint;
  v_done bigint[];
BEGIN
  UPDATE journal_clock SET tick = GREATEST(tick + p_parts, p_now_micros) RETURNING tick INTO last_tick;
  v_first := last_tick - p_parts + 1;

  IF p_tx IS NOT NULL THEN
    INSERT INTO transactions (id, id_update, type_tx, tx_state, wallet_from, wallet_to, currency, amount, fee, tag,
        app_id, external_id, request_hash, client_nonce, profit_wallet, currency_to, amount_to)
      SELECT u.id, v_first + u.off, u.type_tx, u.tx_state, u.wallet_from, u.wallet_to, u.currency, u.amount, u.fee, u.tag,
        u.app_id, u.external_id, u.request_hash, u.client_nonce, u.profit_wallet, u.currency_to, u.amount_to
      FROM unnest(p_tx[1]::bigint[], p_tx[2]::bigint[], p_tx[3]::smallint[], p_tx[4]::smallint[], p_tx[5]::bigint[], p_tx[6]::bigint[],
        p_tx[7]::text[], p_tx[8]::numeric[], p_tx[9]::numeric[], p_tx[10]::text[], p_tx[11]::bigint[], p_tx[12]::text[], p_tx[13]::text[],
        p_tx[14]::bigint[], p_tx[15]::bigint[], p_tx[16]::text[], p_tx[17]::numeric[])
        AS u (id, off, type_tx, tx_state, wallet_from, wallet_to, currency, amount, fee, tag, app_id, external_id, request_hash,
          client_nonce, profit_wallet, currency_to, amount_to);
  END IF;

  IF p_tr IS NOT NULL THEN
    WITH done AS (
      UPDATE transactions AS x SET tx_state = u.to_state, id_update = v_first + u.off, updated_at = now(),
          wallet_from = COALESCE(u.wallet_from, x.wallet_from), wallet_to = COALESCE(u.wallet_to, x.wallet_to),
          amount = COALESCE(u.amount, x.amount), amount_to = COALESCE(u.amount_to, x.amount_to), fee = COALESCE(u.fee, x.fee)
        FROM unnest(p_tr[1]::bigint[], p_tr[2]::smallint[], p_tr[3]::smallint[], p_tr[4]::bigint[], p_tr[5]::bigint[], p_tr[6]::bigint[],
          p_tr[7]::numeric[], p_tr[8]::numeric[], p_tr[9]::numeric[])
          AS u (id, from_state, to_state, off, wallet_from, wallet_to, amount, amount_to, fee)
        WHERE x.id = u.id AND x.tx_state = u.from_state
        RETURNING x.id)
    SELECT array_agg(done.id) INTO v_done FROM done;
    PERFORM ledger_raise_stale(p_tr[1]::bigint[], v_done);
  END IF;

  IF p_po IS NOT NULL THEN
    INSERT INTO postings (tx_id, op_tick, seq, wallet_id, currency, bucket, delta)
      SELECT u.tx_id, v_first + u.off, u.seq, u.wallet_id, u.currency, u.bucket, u.delta
      FROM unnest(p_po[1]::bigint[], p_po[2]::bigint[], p_po[3]::smallint[], p_po[4]::bigint[], p_po[5]::text[], p_po[6]::smallint[],
        p_po[7]::numeric[]) AS u (tx_id, off, seq, wallet_id, currency, bucket, delta);
    -- Two statements, not one upsert: PostgreSQL checks CHECK constraints on the row proposed for
    -- insertion before ON CONFLICT, so a debit's negative delta would be refused as a new row.
    -- The caller sorts the rows, so concurrent batches lock balance rows in one global order.
    INSERT INTO balances (wallet_id, currency)
      SELECT * FROM unnest(p_ba[1]::bigint[], p_ba[2]::text[])
      ON CONFLICT (wallet_id, currency) DO NOTHING;
    UPDATE balances AS b SET
        free = b.free + d.free, lock_out = b.lock_out + d.lock_out,
        lock_in = b.lock_in + d.lock_in, lock_orders = b.lock_orders + d.lock_orders
      FROM unnest(p_ba[1]::bigint[], p_ba[2]::text[], p_ba[3]::numeric[], p_ba[4]::numeric[], p_ba[5]::numeric[], p_ba[6]::numeric[])
        AS d (wallet_id, currency, free, lock_out, lock_in, lock_orders)
      WHERE b.wallet_id = d.wallet_id AND b.currency = d.currency;
  END IF;

  IF p_co IS NOT NULL THEN
    INSERT INTO confirmations (tx_id, wallet_id, channel, code_hash, attempts_left, expires_at)
      SELECT * FROM unnest(p_co[1]::bigint[], p_co[2]::bigint[], p_co[3]::text[], p_co[4]::bytea[], p_co[5]::smallint[],
        p_co[6]::timestamptz[]);
  END IF;
  IF p_dr IS NOT NULL THEN
    DELETE FROM confirmations WHERE tx_id = ANY(p_dr[1]::bigint[]);
  END IF;

  IF p_ev IS NOT NULL THEN
    INSERT INTO events (id, kind, wallet_id, payload)
      SELECT v_first + e.off, e.kind, e.wallet_id, e.payload::jsonb
      FROM unnest(p_ev[1]::bigint[], p_ev[2]::text[], p_ev[3]::bigint[], p_ev[4]::text[]) AS e (off, kind, wallet_id, payload);
  END IF;

  IF p_cd IS NOT NULL THEN
    INSERT INTO codes (tx_id, code_hash, kind, creator, expires_at, partner_info)
      SELECT * FROM unnest(p_cd[1]::bigint[], p_cd[2]::bytea[], p_cd[3]::text[], p_cd[4]::bigint[], p_cd[5]::timestamptz[], p_cd[6]::text[]);
  END IF;
  IF p_bd IS NOT NULL THEN
    UPDATE codes AS c SET counterparty = u.party
      FROM unnest(p_bd[1]::bigint[], p_bd[2]::bigint[]) AS u (tx_id, party)
      WHERE c.tx_id = u.tx_id;
  END IF;
  IF p_nc IS NOT NULL THEN
    INSERT INTO client_nonces (wallet_id, client_nonce, tx_id)
      SELECT * FROM unnest(p_nc[1]::bigint[], p_nc[2]::bigint[], p_nc[3]::bigint[]);
  END IF;

  IF p_oi IS NOT NULL THEN
    INSERT INTO orders (id, wallet_id, room_key, base, quote, side, order_type, price_ticks, quantity_lots, remaining_lots,
        from_currency, to_currency, from_amount, to_amount, locked, state, tag)
      SELECT o.id, o.wallet_id, o.room_key, o.base, o.quote, o.side, o.order_type, o.price_ticks, o.quantity_lots, o.quantity_lots,
        o.from_currency, o.to_currency, o.from_amount, o.to_amount, o.locked, o.state, o.tag
      FROM unnest(p_oi[1]::bigint[], p_oi[2]::bigint[], p_oi[3]::bigint[], p_oi[4]::text[], p_oi[5]::text[], p_oi[6]::smallint[],
        p_oi[7]::smallint[], p_oi[8]::bigint[], p_oi[9]::bigint[], p_oi[10]::text[], p_oi[11]::text[], p_oi[12]::numeric[],
        p_oi[13]::numeric[], p_oi[14]::numeric[], p_oi[15]::smallint[], p_oi[16]::text[])
        AS o (id, wallet_id, room_key, base, quote, side, order_type, price_ticks, quantity_lots, from_currency, to_currency,
          from_amount, to_amount, locked, state, tag);
  END IF;
  IF p_ou IS NOT NULL THEN
    WITH done AS (
      UPDATE orders AS o SET remaining_lots = u.remaining, locked = u.locked, given = u.given,
          received = u.received, fee = u.fee, state = u.state, seq = COALESCE(u.seq, o.seq), updated_at = now()
        FROM unnest(p_ou[1]::bigint[], p_ou[2]::bigint[], p_ou[3]::numeric[], p_ou[4]::numeric[], p_ou[5]::numeric[], p_ou[6]::numeric[],
          p_ou[7]::smallint[], p_ou[8]::bigint[], p_ou[9]::bigint[], p_ou[10]::bigint[])
          AS u (id, remaining, locked, given, received, fee, state, seq, prev_remaining, prev_seq)
        WHERE o.id = u.id AND o.state = 1 AND o.remaining_lots = u.prev_remaining AND o.seq IS NOT DISTINCT FROM u.prev_seq
        RETURNING o.id)
    SELECT array_agg(done.id) INTO v_done FROM done;
    PERFORM ledger_raise_stale(p_ou[1]::bigint[], v_done);
  END IF;
  IF p_trd IS NOT NULL THEN
    INSERT INTO trades (id, room_key, base, quote, price_ticks, price, amount, total, taker_order, maker_order, taker_side)
      SELECT * FROM unnest(p_trd[1]::bigint[], p_trd[2]::bigint[], p_trd[3]::text[], p_trd[4]::text[], p_trd[5]::bigint[],
        p_trd[6]::numeric[], p_trd[7]::numeric[], p_trd[8]::numeric[], p_trd[9]::bigint[], p_trd[10]::bigint[], p_trd[11]::smallint[]);
  END IF;

  PERFORM pg_notify(p_channel, last_tick::text);
  RETURN last_tick;
END
$$
