-- An underpaid crypto order expires like a Started one (docs/PAYMENTS.md "Underpaid crypto"): Processing,
-- nothing in flight (income_seen = 0) and final incomes short of totalToPay (income_final > 0). The expiry
-- sweep (sql/PaymentOrderRepo.ts dueOrderIds) reads those too, on their own partial index beside
-- payment_orders_due (0024), so a sweep still reads only the few rows that may be due.
CREATE INDEX payment_orders_due_underpaid ON payment_orders (expires_at)
  WHERE state_code = 3 AND income_seen = 0 AND income_final > 0;
