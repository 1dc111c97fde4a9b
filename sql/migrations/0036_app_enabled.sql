-- C19 §5: a merchant app can be disabled (set_app_enabled): its pkey is then refused (403 10411) and
-- the gate refuses order_start and every pay_* of its orders (400 10411); reads still work.
ALTER TABLE apps ADD COLUMN enabled boolean NOT NULL DEFAULT true;
