-- A partner order's link (federation_links, kind 1) and a federation_credit's (kind 2) are written by the
-- ledger commit of their FederationCredit (sql/rows/FederationRows.ts), not before it: a commit that
-- fails leaves neither, and a link whose (partner_id, remote_id) is taken fails the whole commit
-- (unique_violation: the writer answers Duplicate) instead of leaving a transaction without its link.
-- Partner transfers (kind 3) keep writing theirs before the wallet actor's reservation (a refused
-- reservation leaves a link without a transaction, which every read ignores; it has no remote_id yet).
CREATE FUNCTION ledger_rows_federation_link_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO federation_links (tx_id, partner_id, kind, remote_id, remote_code, pay_url, expires_at, wallet_id,
      currency, amount, fee, profit_wallet, tag, recipient)
    SELECT u.tx_id, u.partner_id, u.kind, u.remote_id, u.remote_code, u.pay_url, u.expires_at, u.wallet_id,
      u.currency, u.amount, u.fee, u.profit_wallet, u.tag, u.recipient
    FROM unnest(p_cols[1]::bigint[], p_cols[2]::text[], p_cols[3]::smallint[], p_cols[4]::text[], p_cols[5]::text[],
      p_cols[6]::text[], p_cols[7]::timestamptz[], p_cols[8]::bigint[], p_cols[9]::text[], p_cols[10]::numeric[],
      p_cols[11]::numeric[], p_cols[12]::bigint[], p_cols[13]::text[], p_cols[14]::text[])
      AS u (tx_id, partner_id, kind, remote_id, remote_code, pay_url, expires_at, wallet_id, currency, amount, fee,
        profit_wallet, tag, recipient);
END
$$;

-- Reconciliation pages each partner's unsettled links by tx_id (a partner's backlog never hides another's).
CREATE INDEX federation_links_partner_kind ON federation_links (partner_id, kind, tx_id);
