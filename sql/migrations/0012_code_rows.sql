-- Transfer codes' rows in a ledger commit (sql/rows/CodeRows.ts): codes created, counterparties bound.
CREATE FUNCTION ledger_rows_code_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO codes (tx_id, code_hash, kind, creator, expires_at, partner_info)
    SELECT * FROM unnest(p_cols[1]::bigint[], p_cols[2]::bytea[], p_cols[3]::text[], p_cols[4]::bigint[], p_cols[5]::timestamptz[],
      p_cols[6]::text[]);
END
$$;

CREATE FUNCTION ledger_rows_code_bind(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE codes AS c SET counterparty = u.party
    FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[]) AS u (tx_id, party)
    WHERE c.tx_id = u.tx_id;
END
$$;
