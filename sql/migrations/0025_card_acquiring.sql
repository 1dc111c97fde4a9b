-- Built-in card acquiring (CONTRACT C16 "Built-in card acquiring"; docs/CARDS.md).
-- Our side: one row per acquiring session of a PaymentOrder on a Card terminal. `amount` is totalToPay in
-- minor units of `currency` (the order's payCurrency). A session is created Pending by pay_card's commit
-- (row kind acquiring_session_insert) and decided once (row kind acquiring_session_decide): Approved,
-- Declined or Expired, with the provider's event that decided it. At most one Pending session per order.
CREATE TABLE acquiring_sessions (
  acquiring_id  text PRIMARY KEY,
  order_tx_id   bigint NOT NULL REFERENCES payment_orders (tx_id),
  app_id        bigint NOT NULL,
  terminal_id   bigint NOT NULL,
  amount        numeric(78, 0) NOT NULL CHECK (amount > 0),
  currency      text NOT NULL,
  status        text NOT NULL DEFAULT 'Pending' CHECK (status IN ('Pending', 'Approved', 'Declined', 'Expired')),
  checkout_url  text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  checked_at    timestamptz,
  decided_at    timestamptz,
  event_id      text
);
CREATE UNIQUE INDEX acquiring_sessions_one_pending ON acquiring_sessions (order_tx_id) WHERE status = 'Pending';
CREATE INDEX acquiring_sessions_pending ON acquiring_sessions (created_at) WHERE status = 'Pending';
CREATE INDEX acquiring_sessions_order ON acquiring_sessions (order_tx_id, created_at);

CREATE FUNCTION ledger_rows_acquiring_session_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO acquiring_sessions (acquiring_id, order_tx_id, app_id, terminal_id, amount, currency)
    SELECT * FROM unnest(p_cols[1]::text[], p_cols[2]::bigint[], p_cols[3]::bigint[], p_cols[4]::bigint[],
      p_cols[5]::numeric[], p_cols[6]::text[]);
END
$$;

-- The one conditional transition of a session: applied only while it is still Pending, otherwise LC409
-- (ledger_raise_stale, keyed by the order) undoes the whole commit (the order's update and postings too),
-- so a card payment settles exactly once whatever the webhook, reconciliation or expiry race.
CREATE FUNCTION ledger_rows_acquiring_session_decide(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_done bigint[];
BEGIN
  WITH done AS (
    UPDATE acquiring_sessions AS s SET status = u.status, event_id = u.event_id, decided_at = now(), checked_at = now()
      FROM unnest(p_cols[1]::text[], p_cols[2]::bigint[], p_cols[3]::text[], p_cols[4]::text[])
        AS u (acquiring_id, order_tx_id, status, event_id)
      WHERE s.acquiring_id = u.acquiring_id AND s.order_tx_id = u.order_tx_id AND s.status = 'Pending'
      RETURNING s.order_tx_id)
  SELECT array_agg(done.order_tx_id) INTO v_done FROM done;
  PERFORM ledger_raise_stale(p_cols[2]::bigint[], v_done);
END
$$;

-- The webhook secret when ACQUIRER_WEBHOOK_SECRET is unset: generated once, kept here.
CREATE TABLE acquirer_secrets (
  id     smallint PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL
);

-- The sandbox acquirer's own records (src/services/payments/acquiring/SandboxAcquirer.ts), as if they were the
-- provider's database: nothing of ours reads them. `amount` is the decimal text the provider was asked for.
CREATE TABLE sandbox_acquirer_payments (
  acquiring_id  text PRIMARY KEY,
  amount        text NOT NULL,
  currency      text NOT NULL,
  description   text,
  success_url   text NOT NULL,
  fail_url      text NOT NULL,
  expires_at    timestamptz NOT NULL,
  status        text NOT NULL DEFAULT 'Pending' CHECK (status IN ('Pending', 'Approved', 'Declined', 'Expired')),
  card_last4    text,
  event_id      text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  decided_at    timestamptz
);
