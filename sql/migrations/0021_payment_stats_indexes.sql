-- Daily payment statistics (CONTRACT C16, my_payment_stats / payment_stat_get, sql/PaymentStatsRepo.ts):
-- orders by creation day, of one app or of all, and refunds (typeTx 19 transactions of an app) by creation day.
CREATE INDEX payment_orders_app_created ON payment_orders (app_id, created_at);
CREATE INDEX payment_orders_created ON payment_orders (created_at);
CREATE INDEX transactions_refund_created ON transactions (created_at) WHERE type_tx = 19 AND app_id IS NOT NULL;
