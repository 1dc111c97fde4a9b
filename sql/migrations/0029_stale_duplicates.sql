-- A conditional change asked twice for one row in one batch is stale unless both applied.
--
-- ledger_commit applies a batch's transitions (and the feature rows' conditional updates) as multi-row
-- UPDATE … FROM unnest(…): PostgreSQL applies one source row per target row. sql/Folding.ts folds two
-- changes of one transaction that chain (the second starts where the first ends) into one; two that do
-- not chain (both 1 → 8, say: a webhook and a reconciliation of one payment landing in one batch) stay
-- two asks, of which the UPDATE applies one. ledger_raise_stale used to check only that each asked id
-- was among the done ones, so both asks passed and both operations' postings were booked. Now an id
-- asked more often than it was done is stale: the batch raises LC409 and the ledger writer retries its
-- operations one at a time, where the second finds the row moved on and fails alone (test/actors/
-- ledger-batch-duplicates.test.ts).
CREATE OR REPLACE FUNCTION ledger_raise_stale(p_asked bigint[], p_done bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_stale bigint[];
BEGIN
  SELECT array_agg(a.id) INTO v_stale
  FROM (SELECT w.id, count(*) AS asked FROM unnest(p_asked) AS w (id) GROUP BY w.id) AS a
  LEFT JOIN (SELECT d.id, count(*) AS done FROM unnest(COALESCE(p_done, '{}')) AS d (id) GROUP BY d.id) AS d
    ON d.id = a.id
  WHERE a.asked > COALESCE(d.done, 0);
  IF v_stale IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'LC409', MESSAGE = 'stale rows: ' || array_to_string(v_stale, ',');
  END IF;
END
$$;
