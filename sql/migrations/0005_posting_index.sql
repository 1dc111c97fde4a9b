-- Postings are read by transaction (their primary key), never by wallet: balances hold the per-wallet
-- figures. The per-wallet index cost every commit an index insertion per posting for no reader.
DROP INDEX IF EXISTS postings_wallet
