-- Investments (CONTRACT C17, issue #16): the investment row becomes the actor's state. Each transition
-- is one ledger commit carrying an investment_insert (CreateInvest) or a conditional investment_update
-- (every other transaction) row: the update applies only if the row is still in the state AND version
-- the actor read, otherwise LC409 through ledger_raise_stale undoes the whole commit, so maturity racing
-- an early close (or two pushes of one profit) ends in exactly one outcome.
ALTER TABLE investments
  ADD COLUMN baseline numeric(78,0) NOT NULL DEFAULT 0,
  ADD COLUMN penalty numeric(78,0) NOT NULL DEFAULT 0,
  ADD COLUMN activated_at timestamptz,
  ADD COLUMN closed_at timestamptz,
  ADD COLUMN owner_id text,
  ADD COLUMN external_id text,
  ADD COLUMN request_hash text,
  ADD COLUMN transitions jsonb NOT NULL DEFAULT '[]'::jsonb,
  ADD COLUMN due_at timestamptz,
  -- The CloseInvest / EarlyCloseInvest transaction opened (txState 1) on entering ProfitCalculated or
  -- ReceivedEarlyCloseRequest and finished (8) with the money on entering Closed.
  ADD COLUMN close_tx bigint,
  ADD COLUMN version bigint NOT NULL DEFAULT 0;

-- create_investment's idempotency key (C17: same body → the first timetick; another body 10060).
CREATE UNIQUE INDEX investments_external_id ON investments (external_id) WHERE external_id IS NOT NULL;
-- The sweep's due rows (src/services/invest/InvestmentSweep.ts): what is not Closed, by when it must act next.
CREATE INDEX investments_due ON investments (due_at) WHERE state <> 128;
-- INVEST_MAX_OPEN_PER_WALLET counts the wallet's open investments.
CREATE INDEX investments_open ON investments (wallet_id) WHERE state <> 128;

-- Every transaction of an investment (CreateInvest, PaymentInvest, CloseInvest, EarlyCloseInvest), for
-- invest_tx_info: written by the same row functions as the investment's own change.
CREATE TABLE investment_txs (
  tx_id         bigint PRIMARY KEY,
  investment_id bigint NOT NULL REFERENCES investments (timetick)
);

CREATE FUNCTION ledger_rows_investment_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
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

-- An investment's new state, applied only while it is still in `from_state` at `from_version`; the
-- transitions entered by the commit are appended.
CREATE FUNCTION ledger_rows_investment_update(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_done bigint[];
BEGIN
  WITH done AS (
    UPDATE investments AS i SET state = u.state, profit = u.profit, penalty = u.penalty,
        activated_at = u.activated_at, closed_at = u.closed_at, due_at = u.due_at,
        close_tx = coalesce(u.close_tx, i.close_tx),
        transitions = i.transitions || u.added::jsonb, version = i.version + 1
      FROM unnest(p_cols[1]::bigint[], p_cols[2]::smallint[], p_cols[3]::bigint[], p_cols[4]::smallint[],
        p_cols[5]::numeric[], p_cols[6]::numeric[], p_cols[7]::timestamptz[], p_cols[8]::timestamptz[],
        p_cols[9]::timestamptz[], p_cols[10]::text[], p_cols[11]::bigint[], p_cols[12]::bigint[])
        AS u (timetick, from_state, from_version, state, profit, penalty, activated_at, closed_at, due_at, added, close_tx,
          credit_tx)
      WHERE i.timetick = u.timetick AND i.state = u.from_state AND i.version = u.from_version
      RETURNING i.timetick)
  SELECT array_agg(done.timetick) INTO v_done FROM done;
  PERFORM ledger_raise_stale(p_cols[1]::bigint[], v_done);
  INSERT INTO investment_txs (tx_id, investment_id)
    SELECT x.tx_id, u.timetick
    FROM unnest(p_cols[1]::bigint[], p_cols[11]::bigint[], p_cols[12]::bigint[]) AS u (timetick, close_tx, credit_tx)
      CROSS JOIN LATERAL (VALUES (u.close_tx), (u.credit_tx)) AS x (tx_id)
    WHERE x.tx_id IS NOT NULL
    ON CONFLICT (tx_id) DO NOTHING;
END
$$;
