-- Crypto rails (CONTRACT C15): the watch-only custodian ledger that scanners feed and a signer drains.
-- Addresses and memos are allocated outside the ledger; the chain view (headers, items) and each
-- crypto transaction's on-chain record (crypto_txs) are written inside ledger commits as row kinds
-- (sql/rows/CryptoRows.ts), so everything a push decides is one commit.

-- C15: unattributed deposits are held by the system wallet -4 (C6: Σ per currency stays 0).
INSERT INTO wallets (id, client_id, name, address, timetick_update) VALUES (-4, 0, 'Unattributed', 'W-UNATTRIBUTED', 0);

ALTER TABLE terminals ADD COLUMN confirmations integer NOT NULL DEFAULT 6 CHECK (confirmations BETWEEN 1 AND 1000);

-- Derivation indices per network, from 0 upward, taken in the transaction that stores the address.
CREATE TABLE address_counters (
  type_network  integer PRIMARY KEY,
  next_index    integer NOT NULL
);

-- A wallet's memo (memo networks): 6..10 digits, allocated once, unique, never changed.
-- purpose 0 a wallet's, 1 reserved for a payment order (C16).
CREATE TABLE memos (
  memo       text PRIMARY KEY CHECK (memo ~ '^[0-9]{6,10}$'),
  wallet_id  bigint NOT NULL REFERENCES wallets (id),
  purpose    smallint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX memos_wallet ON memos (wallet_id) WHERE purpose = 0;

-- Deposit address records: derived (derivation_index, one per network and index, serving every
-- terminal of the network) or memo records (terminal_id + memo, address = the terminal's hot address).
CREATE TABLE crypto_addresses (
  id                bigserial PRIMARY KEY,
  type_network      integer NOT NULL,
  wallet_id         bigint NOT NULL REFERENCES wallets (id),
  terminal_id       bigint REFERENCES terminals (id),
  derivation_index  integer,
  address           text NOT NULL,
  address_key       text NOT NULL,
  memo              text,
  purpose           smallint NOT NULL DEFAULT 0,
  tick              bigint NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  CHECK ((derivation_index IS NULL) = (memo IS NOT NULL)),
  CHECK ((terminal_id IS NULL) = (memo IS NULL))
);
CREATE UNIQUE INDEX crypto_addresses_index ON crypto_addresses (type_network, derivation_index) WHERE derivation_index IS NOT NULL;
CREATE UNIQUE INDEX crypto_addresses_key ON crypto_addresses (type_network, address_key) WHERE derivation_index IS NOT NULL;
CREATE UNIQUE INDEX crypto_addresses_memo ON crypto_addresses (terminal_id, memo) WHERE memo IS NOT NULL;
CREATE INDEX crypto_addresses_wallet ON crypto_addresses (wallet_id, type_network, id);

-- The current chain of each terminal: the last 1000 headers (orphaned blocks are deleted).
CREATE TABLE chain_blocks (
  terminal_id  bigint NOT NULL,
  height       bigint NOT NULL,
  hash         text NOT NULL,
  parent_hash  text NOT NULL,
  PRIMARY KEY (terminal_id, height)
);

-- Per terminal: its tip and the scanner figures of monitoring.
CREATE TABLE chain_heads (
  terminal_id   bigint PRIMARY KEY REFERENCES terminals (id),
  tip_height    bigint NOT NULL,
  tip_hash      text NOT NULL,
  reorgs        bigint NOT NULL DEFAULT 0,
  deep_reorgs   bigint NOT NULL DEFAULT 0,
  last_push_at  timestamptz NOT NULL DEFAULT now()
);

-- Every item a scanner reported, by its key; its block while in the current chain, `orphaned` once
-- its block left it. direction 0 in, 1 out. tx_id: an in item's current Income; an out item's bound
-- withdrawal or refund.
CREATE TABLE chain_items (
  terminal_id   bigint NOT NULL,
  tx_hash       text NOT NULL,
  idx           bigint NOT NULL,
  direction     smallint NOT NULL,
  from_address  text,
  from_key      text,
  to_address    text NOT NULL,
  to_key        text NOT NULL,
  memo          text,
  amount        numeric(78,0) NOT NULL CHECK (amount > 0),
  block_height  bigint NOT NULL,
  block_hash    text NOT NULL,
  orphaned      boolean NOT NULL DEFAULT false,
  tx_id         bigint,
  tick          bigint NOT NULL,
  PRIMARY KEY (terminal_id, tx_hash, idx, direction)
);
CREATE INDEX chain_items_block ON chain_items (terminal_id, block_height);
CREATE INDEX chain_items_to ON chain_items (terminal_id, to_key);
CREATE INDEX chain_items_from ON chain_items (terminal_id, from_key) WHERE from_key IS NOT NULL;

-- The on-chain side of each crypto transaction (Income 1, Outcome 2, Refund 19): its terminal and
-- stage, the chain fields once seen, partner info, refund links and the signer's queue tick.
CREATE TABLE crypto_txs (
  tx_id            bigint PRIMARY KEY REFERENCES transactions (id),
  terminal_id      bigint NOT NULL REFERENCES terminals (id),
  type_tx          smallint NOT NULL,
  stage            text NOT NULL,
  network_fee      numeric(78,0) NOT NULL DEFAULT 0,
  tx_hash          text,
  idx              bigint,
  from_address     text,
  to_address       text,
  memo             text,
  block_height     bigint,
  block_hash       text,
  orphaned         boolean NOT NULL DEFAULT false,
  partner_info     text,
  description      text,
  source_address   text,
  source_index     integer,
  refund_tx_id     bigint,
  income_tx_id     bigint,
  queue_tick       bigint,
  message          text
);
CREATE INDEX crypto_txs_queue ON crypto_txs (queue_tick) WHERE stage IN ('Queued', 'HandedOff', 'Broadcast');
CREATE INDEX crypto_txs_terminal_stage ON crypto_txs (terminal_id, stage);

-- Row kinds (sql/rows/CryptoRows.ts) --------------------------------------------------------

-- A push's header change: orphan the items of heights >= truncate_from and drop those headers (a
-- reorg), store the new header, trim below the window, move the tip and the scanner figures. The
-- push was planned on a tip (`expect_tip`, NULL: no chain yet); if another process moved it since,
-- the batch is refused (LC409) and the chain actor plans again on fresh reads.
CREATE FUNCTION ledger_rows_chain_head(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r record;
  v_tip text;
  v_count integer;
BEGIN
  FOR r IN SELECT * FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::text[], p_cols[4]::text[], p_cols[5]::bigint[],
      p_cols[6]::bigint[], p_cols[7]::smallint[], p_cols[8]::smallint[], p_cols[9]::bigint[], p_cols[10]::boolean[], p_cols[11]::text[])
      AS u (terminal_id, height, hash, parent_hash, truncate_from, window_floor, reorg, deep, tick, append, expect_tip) LOOP
    IF r.expect_tip IS NULL THEN
      INSERT INTO chain_heads (terminal_id, tip_height, tip_hash) VALUES (r.terminal_id, r.height, r.hash)
        ON CONFLICT (terminal_id) DO NOTHING;
      GET DIAGNOSTICS v_count = ROW_COUNT;
      IF v_count = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'LC409', MESSAGE = 'stale rows: ' || r.terminal_id;
      END IF;
    ELSE
      SELECT tip_hash INTO v_tip FROM chain_heads WHERE terminal_id = r.terminal_id FOR UPDATE;
      IF v_tip IS DISTINCT FROM r.expect_tip THEN
        RAISE EXCEPTION USING ERRCODE = 'LC409', MESSAGE = 'stale rows: ' || r.terminal_id;
      END IF;
    END IF;
    IF r.truncate_from IS NOT NULL THEN
      UPDATE chain_items SET orphaned = true, tick = r.tick
        WHERE terminal_id = r.terminal_id AND block_height >= r.truncate_from AND NOT orphaned;
      DELETE FROM chain_blocks WHERE terminal_id = r.terminal_id AND height >= r.truncate_from;
    END IF;
    IF r.append THEN
      INSERT INTO chain_blocks (terminal_id, height, hash, parent_hash) VALUES (r.terminal_id, r.height, r.hash, r.parent_hash);
      DELETE FROM chain_blocks WHERE terminal_id = r.terminal_id AND height < r.window_floor;
      UPDATE terminals SET last_block = r.height WHERE id = r.terminal_id;
    END IF;
    UPDATE chain_heads SET
        tip_height = CASE WHEN r.append THEN r.height ELSE tip_height END,
        tip_hash = CASE WHEN r.append THEN r.hash ELSE tip_hash END,
        reorgs = reorgs + r.reorg, deep_reorgs = deep_reorgs + r.deep, last_push_at = now()
      WHERE terminal_id = r.terminal_id;
  END LOOP;
END
$$;

-- Items seen in a block of the current chain: new keys inserted, known keys re-attached to it.
CREATE FUNCTION ledger_rows_chain_item(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO chain_items AS c (terminal_id, tx_hash, idx, direction, from_address, from_key, to_address, to_key, memo, amount,
      block_height, block_hash, orphaned, tx_id, tick)
    SELECT u.terminal_id, u.tx_hash, u.idx, u.direction, u.from_address, u.from_key, u.to_address, u.to_key, u.memo, u.amount,
      u.block_height, u.block_hash, false, u.tx_id, u.tick
    FROM unnest(p_cols[1]::bigint[], p_cols[2]::text[], p_cols[3]::bigint[], p_cols[4]::smallint[], p_cols[5]::text[], p_cols[6]::text[],
      p_cols[7]::text[], p_cols[8]::text[], p_cols[9]::text[], p_cols[10]::numeric[], p_cols[11]::bigint[], p_cols[12]::text[],
      p_cols[13]::bigint[], p_cols[14]::bigint[])
      AS u (terminal_id, tx_hash, idx, direction, from_address, from_key, to_address, to_key, memo, amount, block_height, block_hash,
        tx_id, tick)
    ON CONFLICT (terminal_id, tx_hash, idx, direction) DO UPDATE SET
      block_height = EXCLUDED.block_height, block_hash = EXCLUDED.block_hash, orphaned = false,
      tx_id = COALESCE(EXCLUDED.tx_id, c.tx_id), tick = EXCLUDED.tick;
END
$$;

CREATE FUNCTION ledger_rows_crypto_tx_insert(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO crypto_txs (tx_id, terminal_id, type_tx, stage, network_fee, tx_hash, idx, from_address, to_address, memo,
      block_height, block_hash, source_address, source_index, income_tx_id, queue_tick)
    SELECT u.tx_id, u.terminal_id, u.type_tx, u.stage, u.network_fee, u.tx_hash, u.idx, u.from_address, u.to_address, u.memo,
      u.block_height, u.block_hash, u.source_address, u.source_index, u.income_tx_id,
      CASE WHEN u.queued THEN p_first + u.off END
    FROM unnest(p_cols[1]::bigint[], p_cols[2]::bigint[], p_cols[3]::smallint[], p_cols[4]::text[], p_cols[5]::numeric[],
      p_cols[6]::text[], p_cols[7]::bigint[], p_cols[8]::text[], p_cols[9]::text[], p_cols[10]::text[], p_cols[11]::bigint[],
      p_cols[12]::text[], p_cols[13]::text[], p_cols[14]::integer[], p_cols[15]::bigint[], p_cols[16]::boolean[], p_cols[17]::bigint[])
      AS u (tx_id, terminal_id, type_tx, stage, network_fee, tx_hash, idx, from_address, to_address, memo, block_height,
        block_hash, source_address, source_index, income_tx_id, queued, off);
END
$$;

-- A crypto transaction's change, conditional on the stages it may leave (a comma list; NULL: any):
-- a row found elsewhere undoes the batch (LC409). `patch` (jsonb) names the columns it sets; a
-- "queueTick": true entry stamps the part's own update tick (step two, init_refund).
CREATE FUNCTION ledger_rows_crypto_tx_update(p_first bigint, p_cols text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_done bigint[];
BEGIN
  WITH u AS (
    SELECT * FROM unnest(p_cols[1]::bigint[], p_cols[2]::text[], p_cols[3]::text[], p_cols[4]::jsonb[], p_cols[5]::bigint[])
      AS u (tx_id, from_stages, stage, patch, off)
  ), done AS (
    UPDATE crypto_txs AS c SET
        stage = COALESCE(u.stage, c.stage),
        tx_hash = CASE WHEN u.patch ? 'txHash' THEN u.patch->>'txHash' ELSE c.tx_hash END,
        idx = CASE WHEN u.patch ? 'index' THEN (u.patch->>'index')::bigint ELSE c.idx END,
        from_address = CASE WHEN u.patch ? 'fromAddress' THEN u.patch->>'fromAddress' ELSE c.from_address END,
        block_height = CASE WHEN u.patch ? 'blockHeight' THEN (u.patch->>'blockHeight')::bigint ELSE c.block_height END,
        block_hash = CASE WHEN u.patch ? 'blockHash' THEN u.patch->>'blockHash' ELSE c.block_hash END,
        orphaned = CASE WHEN u.patch ? 'orphaned' THEN (u.patch->>'orphaned')::boolean ELSE c.orphaned END,
        partner_info = CASE WHEN u.patch ? 'partnerInfo' THEN u.patch->>'partnerInfo' ELSE c.partner_info END,
        description = CASE WHEN u.patch ? 'description' THEN u.patch->>'description' ELSE c.description END,
        refund_tx_id = CASE WHEN u.patch ? 'refundTxId' THEN (u.patch->>'refundTxId')::bigint ELSE c.refund_tx_id END,
        message = CASE WHEN u.patch ? 'message' THEN u.patch->>'message' ELSE c.message END,
        queue_tick = CASE WHEN u.patch ? 'queueTick' THEN p_first + u.off ELSE c.queue_tick END
      FROM u
      WHERE c.tx_id = u.tx_id AND (u.from_stages IS NULL OR c.stage = ANY (string_to_array(u.from_stages, ',')))
      RETURNING c.tx_id)
  SELECT array_agg(done.tx_id) INTO v_done FROM done;
  -- A deposit attributed later (a link) takes its tariff's profit wallet with its fee.
  UPDATE transactions AS t SET profit_wallet = (u.patch->>'profitWallet')::bigint
    FROM unnest(p_cols[1]::bigint[], p_cols[4]::jsonb[]) AS u (tx_id, patch)
    WHERE t.id = u.tx_id AND u.patch ? 'profitWallet';
  -- Two changes of one row in a batch (from different writers) update it once: the batch is refused
  -- and retried one operation at a time, where each change meets its own condition.
  IF cardinality(p_cols[1]::bigint[]) <> COALESCE(cardinality(v_done), 0) THEN
    RAISE EXCEPTION USING ERRCODE = 'LC409', MESSAGE = 'stale rows: ' || array_to_string(p_cols[1]::bigint[], ',');
  END IF;
END
$$;
