/**
 * sql/Decoding.ts: every repository record decodes through the fast pass, and that pass gives
 * exactly what the record's Schema gives (camelCase keys, bigint money and ids, excess columns
 * dropped); a row the fast pass refuses goes to the Schema, which throws naming the column.
 * No database is started: rows are what the driver returns (int8 → bigint, NUMERIC::text → string).
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { AddressRecord, TechnicalSum } from "../../sql/AddressRepo.ts"
import { Code } from "../../sql/CodeRepo.ts"
import { App, Session } from "../../sql/CredentialRepo.ts"
import { decodeAll, decodeFirst, hasFastPath, Int8, MinorUnits, Nullable, record } from "../../sql/Decoding.ts"
import { Event, Tx } from "../../sql/JournalRepo.ts"
import { InvestmentRow } from "../../sql/InvestmentRepo.ts"
import { Balance, StoredTx } from "../../sql/LedgerRepo.ts"
import { BookLevel, Candle, Order, OrderTrade, PairPrice } from "../../sql/OrderRepo.ts"
import { PaymentStatRow } from "../../sql/PaymentStatsRepo.ts"
import { CurrencyRecord, Rate, Tariff, Terminal } from "../../sql/ReferenceRepo.ts"
import { Room } from "../../sql/RoomRepo.ts"
import { Confirmation, ExpiredConfirmation } from "../../sql/TransferRepo.ts"
import { Wallet } from "../../sql/WalletRepo.ts"

const at = new Date("2026-11-25T12:00:00Z")

const samples: ReadonlyArray<readonly [string, Schema.Decoder<any>, Record<string, unknown>]> = [
  [
    "Wallet",
    Wallet,
    {
      id: 1000001n,
      client_id: 1001n,
      project: 0,
      wallet_group: 3,
      flags: 16,
      name: "main",
      sort_order: 0,
      max_addr_count: 10,
      address: "WABC",
      timetick_update: 7n
    }
  ],
  [
    "Balance",
    Balance,
    { currency: "USDT", free: "100500000", lock_out: "0", lock_in: "-3", lock_orders: "123456789012345678901234567890" }
  ],
  [
    "StoredTx",
    StoredTx,
    { id: 1n, id_update: 2n, wallet_to: 3n, wallet_from: -1n, currency: "USDT", amount: "5", request_hash: null }
  ],
  [
    "PaymentStatRow",
    PaymentStatRow,
    {
      app_id: 1n,
      day_number: 20417n,
      day: "2025-11-25",
      currency: "EUR",
      tx_type: 20,
      total: 3n,
      finished: 2n,
      amount_finished: "1000"
    }
  ],
  [
    "InvestmentRow",
    InvestmentRow,
    {
      timetick: 9n,
      wallet_id: 1n,
      currency: "USDT",
      investment_type: 1,
      state: 2,
      flags: 0,
      amount: "100",
      profit: "1",
      baseline: "0",
      penalty: "0",
      rate_pct: "4.5",
      date_end: at,
      tag: null,
      created_at: at,
      activated_at: at,
      closed_at: null,
      owner_id: "ops",
      external_id: null,
      request_hash: null,
      transitions: "[]",
      close_tx: null,
      due_at: at,
      version: 0n
    }
  ],
  [
    "Tx",
    Tx,
    {
      id: 1n,
      id_update: 2n,
      type_tx: 3,
      tx_state: 4,
      wallet_from: 5n,
      wallet_to: 6n,
      currency: "USDT",
      amount: "100",
      fee: "1",
      tag: null,
      app_id: null,
      profit_wallet: -2n,
      currency_to: "EUR",
      amount_to: "90",
      created_at: at,
      watermark: 12n
    }
  ],
  ["Event", Event, { id: 1n, kind: "TransferSent", wallet_id: 2n, payload: { txId: "1" }, created_at: at }],
  [
    "Confirmation",
    Confirmation,
    {
      tx_id: 1n,
      wallet_id: 2n,
      channel: "Code",
      code_hash: new Uint8Array([1, 2]),
      attempts_left: 5,
      expires_at: at
    }
  ],
  ["ExpiredConfirmation", ExpiredConfirmation, { tx_id: 1n, wallet_id: 2n }],
  [
    "Code",
    Code,
    {
      tx_id: 1n,
      kind: "transfer",
      creator: 2n,
      counterparty: null,
      expires_at: null,
      partner_info: null,
      room_key: null,
      type_tx: 11,
      tx_state: 1,
      id_update: 3n,
      currency: "USDT",
      amount: "10",
      fee: "0",
      profit_wallet: null,
      tag: null,
      created_at: at
    }
  ],
  ["Session", Session, { wallet_id: 1n, client_id: 2n, project: 0, flags: 0, wallet_group: 0, expires_at: at }],
  ["App", App, { id: 5001n, wallet_id: 1n, pkey_hash: new Uint8Array([9]), enabled: true }],
  [
    "CurrencyRecord",
    CurrencyRecord,
    { code: "USDT", name: "Tether", decimals: 6, exchange_enabled: true, is_base: false }
  ],
  [
    "Terminal",
    Terminal,
    {
      id: 1n,
      type_network: 240,
      type_contract: 234,
      currency: null,
      decimals: 0,
      address_contract: null,
      name: "x",
      tag: null,
      priority: 0,
      network_fee: "0.5",
      display_name: null,
      icon_code: null,
      flags: 0,
      default_hot_address: null,
      default_system_wallet_id: -1n,
      wallet_groups: [1, 2],
      last_block: null,
      built_in: true,
      confirmations: 6
    }
  ],
  [
    "AddressRecord",
    AddressRecord,
    {
      id: 3n,
      type_network: 2,
      wallet_id: 1000001n,
      terminal_id: null,
      derivation_index: 0,
      address: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
      address_key: "0x9858effd232b4033e47d90003d41ec34ecaeda94",
      memo: null,
      purpose: 0,
      tick: 1732260000000000n
    }
  ],
  ["TechnicalSum", TechnicalSum, { address_key: "0xab", amount: "-5", tick: 7n }],
  ["Rate", Rate, { from_currency: "USDT", to_currency: "EUR", rate: "0.92" }],
  [
    "Tariff",
    Tariff,
    {
      tx_class: "Exchange",
      currency: "USDT",
      wallet_group: null,
      type_tx: 16,
      fee_fixed: "0.5",
      fee_percent: "0.1",
      min_amount: null,
      max_amount: "1000",
      profit_wallet_id: -2n
    }
  ],
  [
    "Order",
    Order,
    {
      id: 7000000000001n,
      wallet_id: 1n,
      wallet_group: 0,
      type_tx: 16,
      room_key: 0n,
      base: "BTC",
      quote: "USDT",
      side: 1,
      order_type: 1,
      price_ticks: 5000000n,
      price_num: "123456789012345678901234567890",
      price_den: "7",
      quantity_lots: 10n,
      remaining_lots: 4n,
      from_currency: "BTC",
      to_currency: "USDT",
      from_amount: "1000",
      to_amount: "50000",
      locked: "400",
      given: "600",
      received: "30000",
      fee: "30",
      state: 1,
      seq: 12n,
      tag: null,
      created_at: at,
      updated_at: at
    }
  ],
  [
    "Order (market, unplaced)",
    Order,
    {
      id: 7000000000002n,
      wallet_id: 1n,
      wallet_group: 0,
      type_tx: 17,
      room_key: 5n,
      base: "BTC",
      quote: "USDT",
      side: 0,
      order_type: 3,
      price_ticks: null,
      price_num: null,
      price_den: null,
      quantity_lots: 9007199254740991n,
      remaining_lots: 9007199254740991n,
      from_currency: "USDT",
      to_currency: "BTC",
      from_amount: "1000",
      to_amount: null,
      locked: "1000",
      given: "0",
      received: "0",
      fee: "0",
      state: 1,
      seq: null,
      tag: "t",
      created_at: at,
      updated_at: at
    }
  ],
  ["BookLevel", BookLevel, { price_num: "50000", price_den: "1", lots: "12" }],
  ["PairPrice", PairPrice, { base: "BTC", quote: "USDT", price: "50000.5" }],
  [
    "Candle",
    Candle,
    {
      bucket: at,
      open: "1",
      high: "2",
      low: "0.5",
      close: "1.5",
      volume: "100",
      total: "150",
      trades: 3n
    }
  ],
  ["OrderTrade", OrderTrade, { taker_order: 1n, maker_order: 2n, price: "1.5", amount: "100", total: "150", at }],
  [
    "Room",
    Room,
    {
      room_key: 7000000000003n,
      currency1: "BTC",
      currency2: "USDT",
      flags: 0,
      to_balance_limit: null,
      owner: 1n,
      share_code: "Rabc",
      closed_at: null,
      created_at: at
    }
  ]
]

describe("repository records", () => {
  for (const [name, schema, row] of samples) {
    it(`${name}: the fast pass and the Schema agree`, () => {
      assert.isTrue(hasFastPath(schema), `${name} has a field outside sql/Decoding.ts's codecs`)
      const [fast] = decodeAll(schema)([row])
      assert.deepStrictEqual(fast, Schema.decodeUnknownSync(schema)(row))
      assert.notProperty(fast, "watermark")
    })
  }

  it("money is exact: NUMERIC text becomes a bigint, wider than a double", () => {
    const [balance] = decodeAll(Balance)([samples[1][2]])
    assert.strictEqual(balance.lockOrders, 123456789012345678901234567890n)
    assert.strictEqual(balance.lockIn, -3n)
  })

  it("a row the record does not describe throws, naming the column", () => {
    const balances = decodeAll(Balance)
    assert.throws(() => balances([{ ...samples[1][2], lock_out: "1.5" }]), /lockOut|lock_out/)
    assert.throws(() => balances([{ ...samples[1][2], free: 5 }]), /free/)
    assert.throws(() => decodeAll(Wallet)([{ ...samples[0][2], id: "1000001" }]), /id/)
  })

  it("a field outside the codecs still decodes, through the Schema", () => {
    const Mixed = record({ id: Int8, amount: MinorUnits, note: Schema.NullOr(Schema.String), ref: Nullable(Int8) })
    assert.isFalse(hasFastPath(Mixed))
    assert.deepStrictEqual(decodeFirst(Mixed)([{ id: 1n, amount: "2", note: null, ref: 3n }]), {
      id: 1n,
      amount: 2n,
      note: null,
      ref: 3n
    })
    assert.strictEqual(decodeFirst(Mixed)([]), undefined)
  })
})
