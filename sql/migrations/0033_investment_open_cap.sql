-- INVEST_MAX_OPEN_PER_WALLET under the wallet's lock (issue #22 item 14, C17 10161). The service counts a
-- wallet's open investments before it asks the wallet's actor to commit, but N creations racing (one
-- process's batch, or several WORKERS) all counted before any committed. Now the creation's own commit
-- counts again: ledger_rows_investment_insert takes a transaction-scoped advisory lock per wallet of the
-- batch (in wallet order, so two batches never wait on each other in a cycle), counts the wallet's open
-- (not Closed) investments plus the batch's new ones, and refuses the whole batch with SQLSTATE LC461
-- when a wallet would exceed the cap that rides on each row (column 19; NULL: no cap). The lock is held
-- to the commit, so the next creation's count sees this one. The LedgerWriter maps LC461 to a typed
-- refusal and retries a refused batch's operations one at a time, so only the creations over the cap fail.
CREATE OR REPLACE FUNCTION ledger_rows_investment_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_over text;
BEGIN
  IF p_cols[19] IS NOT NULL THEN
    -- Advisory key: the wallet id in the investments' own lock space (classid 17, C17).
    PERFORM pg_advisory_xact_lock(17, hashint8(w.wallet_id))
      FROM (SELECT DISTINCT u.wallet_id FROM unnest(p_cols[2]::bigint[]) AS u (wallet_id) ORDER BY 1) AS w;
    SELECT string_agg(b.wallet_id::text, ',') INTO v_over
      FROM (SELECT u.wallet_id, count(*) AS added, min(u.open_max) AS open_max
              FROM unnest(p_cols[2]::bigint[], p_cols[19]::integer[]) AS u (wallet_id, open_max)
              WHERE u.open_max IS NOT NULL
              GROUP BY u.wallet_id) AS b
      WHERE (SELECT count(*) FROM investments AS i WHERE i.wallet_id = b.wallet_id AND i.state <> 128) + b.added
        > b.open_max;
    IF v_over IS NOT NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'LC461', MESSAGE = 'too many open investments: wallets ' || v_over;
    END IF;
  END IF;
  INSERT INTO investments (timetick, wallet_id, currency, investment_type, state, flags, amount, profit, baseline,
      rate_pct, date_end, tag, created_at, activated_at, owner_id, external_id, request_hash, transitions, due_at)
    SELECT u.timetick, u.wallet_id, u.currency, u.investment_type, u.state, u.flags, u.amount, u.profit, u.profit,
      u.rate_pct, u.date_end, u.tag, u.created_at, u.activated_at, u.owner_id, u.external_id, u.request_hash,
      u.transitions::jsonb, u.due_at
    FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::text[], p_cols[4]::smallint[], p_cols[5]::smallint[],
      p_cols[6]::smallint[], p_cols[7]::numeric[], p_cols[8]::numeric[], p_cols[9]::numeric[], p_cols[10]::timestamptz[],
      p_cols[11]::text[], p_cols[12]::timestamptz[], p_cols[13]::timestamptz[], p_cols[14]::text[], p_cols[15]::text[],
      p_cols[16]::text[], p_cols[17]::text[], p_cols[18]::timestamptz[])
      AS u (timetick, wallet_id, currency, investment_type, state, flags, amount, profit, rate_pct, date_end, tag,
        created_at, activated_at, owner_id, external_id, request_hash, transitions, due_at);
  INSERT INTO investment_txs (tx_id, investment_id) SELECT t, t FROM unnest(p_cols[1]::bigint[]) AS u (t);
END
$$;
