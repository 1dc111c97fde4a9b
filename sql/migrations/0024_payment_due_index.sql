-- The expiry sweeper (sql/PaymentOrderRepo.ts dueOrderIds, every PAYMENT_SWEEP_SECONDS) reads open orders
-- past expiresAt, oldest first: a partial index over the open ones only, so a sweep reads the few due rows
-- instead of scanning every order ever made.
CREATE INDEX payment_orders_due ON payment_orders (expires_at) WHERE state_code IN (1, 2);
