-- Σ = 0 in SQL too (issue #22 item 17): ledger_commit refuses a batch whose postings do not sum to zero
-- per transaction and currency, as defence in depth beside the LedgerWriter's own check
-- (src/platform/LedgerWriter.ts invariantSumsToZero). It raises SQLSTATE LC422 naming the transactions
-- and nothing of the batch is written; the writer maps LC422 to a typed refusal (LedgerRefused), never a
-- retry. The postings are still parsed once (the INSERT's RETURNING rows are what is summed). Otherwise
-- the function is 0011's, unchanged.
CREATE OR REPLACE FUNCTION ledger_commit(
  p_parts integer, p_now_micros bigint, p_channel text,
  p_tx text[], p_tr text[], p_po text[], p_ba text[], p_co text[], p_dr text[], p_ev text[], p_nc text[],
  p_kinds text[], p_groups text[]
) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_first bigint;
  last_tick bigint;
  v_done bigint[];
  v_unbalanced text;
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
    -- The postings are parsed once: the rows the INSERT returns are summed per transaction and
    -- currency, and a batch where any sum is not zero is refused whole (LC422) before a balance moves.
    WITH ins AS (
      INSERT INTO postings (tx_id, op_tick, seq, wallet_id, currency, bucket, delta)
        SELECT u.tx_id, v_first + u.off, u.seq, u.wallet_id, u.currency, u.bucket, u.delta
        FROM unnest(p_po[1]::bigint[], p_po[2]::bigint[], p_po[3]::smallint[], p_po[4]::bigint[], p_po[5]::text[], p_po[6]::smallint[],
          p_po[7]::numeric[]) AS u (tx_id, off, seq, wallet_id, currency, bucket, delta)
        RETURNING tx_id, currency, delta)
    SELECT string_agg(s.tx_id || ' ' || s.currency || ' ' || s.total, ', ') INTO v_unbalanced
      FROM (SELECT ins.tx_id, ins.currency, sum(ins.delta) AS total FROM ins GROUP BY ins.tx_id, ins.currency) AS s
      WHERE s.total <> 0;
    IF v_unbalanced IS NOT NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'LC422', MESSAGE = 'unbalanced postings (tx currency sum): ' || v_unbalanced;
    END IF;
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

  IF p_nc IS NOT NULL THEN
    INSERT INTO client_nonces (wallet_id, client_nonce, tx_id)
      SELECT * FROM unnest(p_nc[1]::bigint[], p_nc[2]::bigint[], p_nc[3]::bigint[]);
  END IF;

  IF p_kinds IS NOT NULL THEN
    FOR i IN 1 .. array_length(p_kinds, 1) LOOP
      -- Only ledger_rows_* functions can be reached, whatever name arrives.
      IF p_kinds[i] !~ '^[a-z_]+$' THEN
        RAISE EXCEPTION 'ledger row kind % is not a plain name', p_kinds[i];
      END IF;
      EXECUTE format('SELECT ledger_rows_%s($1, $2::text[])', p_kinds[i]) USING v_first, p_groups[i];
    END LOOP;
  END IF;

  PERFORM pg_notify(p_channel, last_tick::text);
  RETURN last_tick;
END
$$;
