-- Merchant webhooks (CONTRACT C16 "Merchant webhooks (outbound)", issue #15; docs/WEBHOOKS.md).
-- An app's webhook URL and signing secret (the secret must sign, so it is kept usable: see
-- docs/WEBHOOKS.md "Secrets"), the outbox of events and each delivery attempt.
ALTER TABLE apps
  ADD COLUMN webhook_url    text,
  ADD COLUMN webhook_secret text;

-- One row per state an order or a refund entered, born in the commit of that transition (the
-- triggers below), only when a URL applies (the order's, else the app's). `snapshot` is the row as of
-- that state (to_jsonb of the payment_orders / payment_refunds row; jsonb numbers are exact numerics),
-- with that commit's update tick; the event's type is `object_type`.<the state's name> (named in
-- TypeScript, by the engine's stateName); the body is rendered from it once, stored in `body`,
-- and every attempt sends those bytes. `attempts` counts every attempt ever; `budget_base` is the
-- count when the current budget began (redeliver_webhook), so a budget is attempts - budget_base.
CREATE TABLE webhook_events (
  event_id        text PRIMARY KEY,
  app_id          bigint NOT NULL,
  order_tx_id     bigint NOT NULL,
  object_tx_id    bigint NOT NULL,
  object_type     text NOT NULL CHECK (object_type IN ('PaymentOrder', 'TransferOrder', 'Refund')),
  state_code      smallint NOT NULL,
  url             text NOT NULL,
  snapshot        jsonb NOT NULL,
  id_update       bigint NOT NULL,
  body            text,
  state           text NOT NULL DEFAULT 'Pending' CHECK (state IN ('Pending', 'Delivered', 'Failed')),
  attempts        integer NOT NULL DEFAULT 0,
  budget_base     integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  seq             bigserial NOT NULL
);
-- What the dispatcher reads: Pending events by due time (Delivered / Failed leave the index).
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE state = 'Pending';
CREATE INDEX webhook_events_order ON webhook_events (order_tx_id, seq);

CREATE TABLE webhook_attempts (
  event_id    text NOT NULL REFERENCES webhook_events (event_id),
  attempt     integer NOT NULL,
  at          timestamptz NOT NULL,
  http_status integer,
  error       text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (event_id, attempt)
);

CREATE FUNCTION webhook_order_event_insert(p_row payment_orders, p_url text, p_tick bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_events (event_id, app_id, order_tx_id, object_tx_id, object_type, state_code, url,
      snapshot, id_update, next_attempt_at)
    VALUES ('evt_o' || p_row.tx_id || '_' || p_row.version || '_' || p_row.state_code, p_row.app_id, p_row.tx_id,
      p_row.tx_id, p_row.kind, p_row.state_code, p_url, to_jsonb(p_row), p_tick, clock_timestamp())
    ON CONFLICT (event_id) DO NOTHING;
END
$$;

-- An order entered a state: its event, when a URL applies. Deferred to the commit's end, so the order's
-- preselection (written after the insert, in the same commit) and its transaction's tick are there.
-- A pay action's implicit start commits Created → Paid / Processing in one update: the Started it
-- passed through is an event too, its data the order as started (the snapshot before the payment).
CREATE FUNCTION webhook_order_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_url text;
  v_tick bigint;
  v_row payment_orders;
  v_started payment_orders;
BEGIN
  v_url := coalesce(NEW.webhook_url, (SELECT a.webhook_url FROM apps a WHERE a.id = NEW.app_id));
  IF v_url IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT t.id_update INTO v_tick FROM transactions t WHERE t.id = NEW.tx_id;
  v_row := NEW;
  IF TG_OP = 'INSERT' THEN
    SELECT o.preset_terminal_id, o.preset_pay_currency, o.preset_pay_amount
      INTO v_row.preset_terminal_id, v_row.preset_pay_currency, v_row.preset_pay_amount
      FROM payment_orders o WHERE o.tx_id = NEW.tx_id;
  ELSIF OLD.state_code = 1 AND NEW.state_code > 2 AND OLD.terminal_id IS NULL AND NEW.terminal_id IS NOT NULL THEN
    v_started := NEW;
    v_started.state_code := 2;
    v_started.paid_at := OLD.paid_at;
    v_started.paid_amount := OLD.paid_amount;
    v_started.payer_wallet_id := OLD.payer_wallet_id;
    v_started.recipient := OLD.recipient;
    v_started.meta := OLD.meta;
    v_started.income_seen := OLD.income_seen;
    v_started.income_final := OLD.income_final;
    PERFORM webhook_order_event_insert(v_started, v_url, v_tick);
  END IF;
  PERFORM webhook_order_event_insert(v_row, v_url, v_tick);
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER payment_orders_webhook_created AFTER INSERT ON payment_orders
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION webhook_order_event();

CREATE CONSTRAINT TRIGGER payment_orders_webhook_state AFTER UPDATE OF state_code ON payment_orders
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.state_code IS DISTINCT FROM NEW.state_code)
  EXECUTE FUNCTION webhook_order_event();

-- A refund entered a state (its insert: Pending, or Finished at once; its settlement): its event.
CREATE FUNCTION webhook_refund_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_url text;
  v_tick bigint;
BEGIN
  SELECT coalesce(o.webhook_url, a.webhook_url) INTO v_url
    FROM payment_orders o LEFT JOIN apps a ON a.id = o.app_id WHERE o.tx_id = NEW.order_tx_id;
  IF v_url IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT t.id_update INTO v_tick FROM transactions t WHERE t.id = NEW.tx_id;
  INSERT INTO webhook_events (event_id, app_id, order_tx_id, object_tx_id, object_type, state_code, url,
      snapshot, id_update, next_attempt_at)
    VALUES ('evt_r' || NEW.tx_id || '_' || NEW.state_code, NEW.app_id, NEW.order_tx_id, NEW.tx_id, 'Refund',
      NEW.state_code, v_url, to_jsonb(NEW), v_tick, clock_timestamp())
    ON CONFLICT (event_id) DO NOTHING;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER payment_refunds_webhook_created AFTER INSERT ON payment_refunds
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION webhook_refund_event();

CREATE CONSTRAINT TRIGGER payment_refunds_webhook_state AFTER UPDATE OF state_code ON payment_refunds
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.state_code IS DISTINCT FROM NEW.state_code)
  EXECUTE FUNCTION webhook_refund_event();
