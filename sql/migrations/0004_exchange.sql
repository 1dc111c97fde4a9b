-- The exchange: private rooms, orders, trades; exchange legs on transactions.
-- An order IS a transaction (same timetick id, typeTx 16/17): placement locks fromAmount
-- (free -> lock_orders) with postings on it, every fill posts to it again, and completion or
-- cancellation moves it to a final state. A swap is a two-step transaction of the same types.

-- The target leg of an exchange transaction (orders and swaps): the currency received and the
-- net amount received so far; `fee` is then in currency_to (CONTRACT C14: fee in the target currency).
ALTER TABLE transactions ADD COLUMN currency_to text;
ALTER TABLE transactions ADD COLUMN amount_to numeric(78,0);

-- Private rooms (public room 0 of each pair is implicit). The share code is shown to members in
-- list_rooms; apply_code with it joins the room.
CREATE TABLE rooms (
  room_key          bigint PRIMARY KEY,
  currency1         text NOT NULL REFERENCES currencies (code),
  currency2         text NOT NULL REFERENCES currencies (code),
  flags             integer NOT NULL DEFAULT 0 CHECK (flags IN (0, 1)),
  to_balance_limit  numeric CHECK (to_balance_limit >= 0),
  owner             bigint NOT NULL REFERENCES wallets (id),
  share_code        text NOT NULL UNIQUE,
  closed_at         timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  CHECK (currency1 <> currency2)
);
CREATE INDEX rooms_owner_open ON rooms (owner) WHERE closed_at IS NULL;

CREATE TABLE room_members (
  room_key   bigint NOT NULL REFERENCES rooms (room_key),
  wallet_id  bigint NOT NULL REFERENCES wallets (id),
  joined_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (room_key, wallet_id)
);
CREATE INDEX room_members_wallet ON room_members (wallet_id);

-- Orders. Engine form (side, price ticks, lots) is stored so a room rebuilds its book exactly;
-- `seq` is the room's arrival order (price-time priority), set when the room first processed the
-- order; an Active order with a NULL seq was locked but not yet matched (replayed on activation).
-- `locked` is what still sits in the wallet's lock_orders for this order (in from_currency).
CREATE TABLE orders (
  id              bigint PRIMARY KEY REFERENCES transactions (id),
  wallet_id       bigint NOT NULL REFERENCES wallets (id),
  room_key        bigint NOT NULL,
  base            text NOT NULL,
  quote           text NOT NULL,
  side            smallint NOT NULL CHECK (side IN (0, 1)),
  order_type      smallint NOT NULL CHECK (order_type IN (1, 2, 3)),
  price_ticks     bigint,
  quantity_lots   bigint NOT NULL CHECK (quantity_lots > 0),
  remaining_lots  bigint NOT NULL CHECK (remaining_lots >= 0),
  from_currency   text NOT NULL,
  to_currency     text NOT NULL,
  from_amount     numeric(78,0) NOT NULL CHECK (from_amount > 0),
  to_amount       numeric(78,0),
  locked          numeric(78,0) NOT NULL CHECK (locked >= 0),
  given           numeric(78,0) NOT NULL DEFAULT 0,
  received        numeric(78,0) NOT NULL DEFAULT 0,
  fee             numeric(78,0) NOT NULL DEFAULT 0,
  state           smallint NOT NULL,
  seq             bigint,
  tag             text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_wallet ON orders (wallet_id, id DESC);
CREATE INDEX orders_active_wallet ON orders (wallet_id) WHERE state = 1;
CREATE INDEX orders_book ON orders (room_key, base, quote) WHERE state = 1;

CREATE TABLE trades (
  id           bigint PRIMARY KEY,
  room_key     bigint NOT NULL,
  base         text NOT NULL,
  quote        text NOT NULL,
  price_ticks  bigint NOT NULL,
  price        numeric NOT NULL,
  amount       numeric(78,0) NOT NULL,
  total        numeric(78,0) NOT NULL,
  taker_order  bigint NOT NULL,
  maker_order  bigint NOT NULL,
  taker_side   smallint NOT NULL,
  at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trades_pair ON trades (base, quote, at)
