-- Foreign keys on the rows every commit appends cost PostgreSQL a referential-integrity trigger per
-- row: a `SELECT ... FOR KEY SHARE` on the referenced row, which also marks that row locked. The
-- ledger writer is the only writer of these rows and inserts a transaction, its postings, its
-- confirmation and its order row in one statement batch of one SQL transaction; the invariant
-- tests check after every batch that no posting, confirmation or order lacks its transaction.
ALTER TABLE postings DROP CONSTRAINT postings_tx_id_fkey;
ALTER TABLE transactions DROP CONSTRAINT transactions_currency_fkey;
ALTER TABLE confirmations DROP CONSTRAINT confirmations_tx_id_fkey;
ALTER TABLE orders DROP CONSTRAINT orders_id_fkey;
ALTER TABLE orders DROP CONSTRAINT orders_wallet_id_fkey;
-- Every commit rewrites balance rows; free space on their pages lets PostgreSQL keep the new row
-- version on the same page without touching the primary-key index (a HOT update).
ALTER TABLE balances SET (fillfactor = 50);
