-- Every committed transaction pays an insertion into each of its indexes. Two of them indexed rows
-- no reader asks for: external ids are NULL for all but treasury postings, and the profit listing
-- only reads rows that carry a fee. Both become partial (same uniqueness, same lookups).
ALTER TABLE transactions DROP CONSTRAINT transactions_external_id_key;
CREATE UNIQUE INDEX transactions_external_id ON transactions (external_id) WHERE external_id IS NOT NULL;
DROP INDEX transactions_profit;
CREATE INDEX transactions_profit ON transactions (profit_wallet, id_update) WHERE profit_wallet IS NOT NULL AND fee > 0
