/**
 * Paying a payment order by crypto (CONTRACT C16 crypto, C15 purpose-1 addresses) over HTTP, with
 * the scanner's pushes: pay_crypto reserves the order's own address (a repeat returns it),
 * confirm_crypto records the payer's claimed hash, cancel_crypto detaches (a new pay_crypto on that terminal attaches it again, C19 §9); an income seen makes the
 * order Processing (merchant lock_in), Σ final ≥ totalToPay makes it Paid (merchant free +orderAmount
 * and any excess, fee to the profit wallet), an under-payment waits, an orphaned income is reversed,
 * and income to a paid or expired order's address is a plain Income. The ledger audit runs after each test.
 */
import { assert, describe, it } from "@effect/vitest"
import { addCryptoTerminal, blockOk, pushOk, someEvmAddress } from "../support/Chain.ts"
import type { Party } from "../support/Client.ts"
import { SOLANA_HOT, xpubEnv } from "../support/CryptoAddresses.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"

const { client } = serviceForFile({ env: xpubEnv, setup: async () => {} })
const shop = merchantOf(client)

let merchant: Party
let fees: Party
let app: { appId: string; pkey: string }
let next = 0

const setup = async () => {
  if (merchant !== undefined) return
  ;({ merchant, fees, app } = await shop.open("Crypto shop"))
  await client.setTariffs([
    { txClass: "Payment", currency: "ETH", feeFixed: "0.01", feePercent: "0", profitWalletId: fees.id }
  ])
}

const newOrder = async (body: Record<string, unknown> = {}) => {
  await setup()
  const reply = await shop.call(app, "POST", "put_payment_order", {
    currency: "ETH",
    orderAmount: "1",
    externalId: `crypto-${next++}`,
    ...body
  })
  return shop.ok(reply) as { code: string; id: string }
}

const gate = (action: string, code: string, body?: unknown, method = "POST") => shop.gate(method, action, code, body)

const gateOk = (action: string, code: string, body?: unknown, method = "POST") =>
  shop.gateOk(method, action, code, body)

const info = (code: string) => gateOk("get_order_info", code, undefined, "GET")

/** A fresh terminal (ERC20 on Ethereum, ETH, 3 confirmations) and an order started on it. */
const paying = async (body: Record<string, unknown> = {}) => {
  const t = await addCryptoTerminal(client, { confirmations: 3 })
  const order = await newOrder(body)
  const started = await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })
  return { t, order, started, to: started.address.address as string }
}

const buckets = () => client.bucketsOf(merchant, "ETH")

describe("pay_crypto, confirm_crypto, cancel_crypto", () => {
  it("pay_crypto starts the order and reserves its own address; a repeat returns it", async () => {
    const { t, order, started, to } = await paying()
    assert.deepInclude(started, {
      state: "Started",
      payCurrency: "ETH",
      payAmount: "1",
      fee: "0.01",
      totalToPay: "1.01"
    })
    assert.match(to, /^0x[0-9A-Fa-f]{40}$/)
    assert.deepStrictEqual(started.address, {
      address: to,
      memo: null,
      tokenNetworkId: t.id,
      currency: "ETH",
      amount: "1.01",
      txHash: null,
      received: "0",
      confirmations: 0,
      confirmationsRequired: 3
    })
    const again = await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })
    assert.strictEqual(again.address.address, to)
    assert.deepStrictEqual((await info(order.code)).address, started.address)
    // Reserved for the order: never one of the wallet's own addresses.
    const own = await client.call("GET", "/core/v1/wallet/list_addresses", { sid: merchant.sid })
    assert.notInclude(
      (own.body.result as Array<any>).map((a) => a.address),
      to
    )
    // Another order gets another address.
    const other = await newOrder()
    const otherStarted = await gateOk("pay_crypto", other.code, { tokenNetworkId: t.id })
    assert.notStrictEqual(otherStarted.address.address, to)
  })

  it("refuses unknown terminals (404 10040), the internal one (10303) and another terminal once locked (10304)", async () => {
    const order = await newOrder()
    assertRejected(await gate("pay_crypto", order.code, { tokenNetworkId: "999999" }), 404, errorCode.TerminalNotFound)
    const networks = await client.priv("GET", "tokens_networks")
    const internal = String((networks.body.result as Array<any>).find((t) => t.typeNetwork === 240).id)
    assertRejected(
      await gate("pay_crypto", order.code, { tokenNetworkId: internal }),
      400,
      errorCode.TerminalNotAvailable
    )
    const { order: locked } = await paying()
    const t2 = await addCryptoTerminal(client, { confirmations: 3 })
    assertRejected(await gate("pay_crypto", locked.code, { tokenNetworkId: t2.id }), 400, errorCode.TerminalLocked)
    assertRejected(await gate("pay_crypto", "Pnothing", { tokenNetworkId: t2.id }), 404, errorCode.PaymentOrderNotFound)
  })

  it("confirm_crypto records the claimed hash (replaceable); 10306 without a crypto payment, 10001 for a bad hash", async () => {
    const created = await newOrder()
    assertRejected(await gate("confirm_crypto", created.code, { txHash: "abc" }), 400, errorCode.NoPaymentInProgress)
    const { order } = await paying()
    assertRejected(await gate("confirm_crypto", order.code, { txHash: "" }), 400, errorCode.InvalidRequest, "txHash")
    assertRejected(await gate("confirm_crypto", order.code, { txHash: "0x-12" }), 400, errorCode.InvalidRequest)
    assertRejected(await gate("confirm_crypto", order.code, { txHash: "a".repeat(129) }), 400, errorCode.InvalidRequest)
    const first = await gateOk("confirm_crypto", order.code, { txHash: "abc1" })
    assert.strictEqual(first.address.txHash, "abc1")
    const second = await gateOk("confirm_crypto", order.code, { txHash: "DEF2" })
    assert.strictEqual(second.address.txHash, "DEF2")
    assert.strictEqual(second.state, "Started", "money follows the scanner only")
  })

  it("cancel_crypto: back to Created, detached; a new pay_crypto on that terminal reuses the address (C19 §9); 10309 after an income", async () => {
    const { t, order, to } = await paying()
    const canceled = await gateOk("cancel_crypto", order.code, {})
    assert.deepInclude(canceled, { state: "Created", terminal: null, address: null, payAmount: null, totalToPay: null })
    assertRejected(await gate("cancel_crypto", order.code, {}), 400, errorCode.NoPaymentInProgress)
    assertRejected(await gate("confirm_crypto", order.code, { txHash: "abc" }), 400, errorCode.NoPaymentInProgress)
    // Income to the detached address is a plain Income of the merchant wallet.
    const before = await buckets()
    const pushed = await blockOk(client, t.id, "c", 1, [{ txHash: "cx1", to, amount: "0.2" }])
    assert.strictEqual(pushed.items[0].walletId, merchant.id)
    assert.strictEqual((await info(order.code)).state, "Created")
    assert.closeTo((await buckets()).lockIn - before.lockIn, 0.2, 1e-9)

    const again = await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })
    assert.strictEqual(again.address.address, to, "the order's detached address, attached again")
    await blockOk(client, t.id, "c", 2, [{ txHash: "cx2", to: again.address.address, amount: "0.5" }])
    assert.strictEqual((await info(order.code)).state, "Processing")
    assertRejected(await gate("cancel_crypto", order.code, {}), 400, errorCode.PaymentPending)
  })
})

describe("the chain side: incomes to the order's address", () => {
  it("income seen → Processing (merchant lock_in); final → Paid (merchant free +orderAmount, fee wallet +fee)", async () => {
    const { t, order, to } = await paying()
    const before = await buckets()
    const feesBefore = (await client.bucketsOf(fees, "ETH")).free
    const seen = await blockOk(client, t.id, "p", 1, [{ txHash: "px", to, amount: "1.01" }])
    assert.strictEqual(seen.items[0].walletId, merchant.id)
    const processing = await info(order.code)
    assert.deepInclude(processing, { state: "Processing", stateCode: 3 })
    assert.deepInclude(processing.address, { received: "1.01", confirmations: 1 })
    let now = await buckets()
    assert.closeTo(now.lockIn - before.lockIn, 1.01, 1e-9)
    assert.closeTo(now.free - before.free, 0, 1e-9)
    await blockOk(client, t.id, "p", 2)
    assert.strictEqual((await info(order.code)).state, "Processing")
    await blockOk(client, t.id, "p", 3)
    const paid = await info(order.code)
    assert.deepInclude(paid, { state: "Paid", stateCode: 8, txState: 8 })
    assert.strictEqual(paid.address.confirmations, 3)
    now = await buckets()
    assert.closeTo(now.lockIn - before.lockIn, 0, 1e-9)
    assert.closeTo(now.free - before.free, 1, 1e-9)
    assert.closeTo((await client.bucketsOf(fees, "ETH")).free - feesBefore, 0.01, 1e-9)
    // The Income the order took carries no Deposit fee of its own.
    const tx = await client.call("POST", "/core/v1/address_tx_info", { sid: merchant.sid, body: [seen.items[0].txId] })
    assert.deepInclude(tx.body.result[0], { txState: 8, stage: "Credited", fee: "0" })

    // Income to a paid order's address is a plain Income of the merchant.
    const late = await blockOk(client, t.id, "p", 4, [{ txHash: "py", to, amount: "0.3" }])
    assert.strictEqual(late.items[0].walletId, merchant.id)
    await blockOk(client, t.id, "p", 5)
    await blockOk(client, t.id, "p", 6)
    now = await buckets()
    assert.closeTo(now.free - before.free, 1.3, 1e-9)
    const after = await info(order.code)
    assert.deepInclude(after, { state: "Paid" })
  })

  it("an under-payment stays Processing; a second income over totalToPay pays it, the excess to the merchant", async () => {
    const { t, order, to } = await paying()
    const before = await buckets()
    const feesBefore = (await client.bucketsOf(fees, "ETH")).free
    await blockOk(client, t.id, "u", 1, [{ txHash: "ua", to, amount: "0.5" }])
    await blockOk(client, t.id, "u", 2)
    await blockOk(client, t.id, "u", 3)
    assert.strictEqual((await info(order.code)).state, "Processing", "final but short")
    assert.closeTo((await buckets()).lockIn - before.lockIn, 0.5, 1e-9)
    await blockOk(client, t.id, "u", 4, [{ txHash: "ub", to, amount: "0.6" }])
    await blockOk(client, t.id, "u", 5)
    assert.strictEqual((await info(order.code)).state, "Processing")
    await blockOk(client, t.id, "u", 6)
    const paid = await info(order.code)
    assert.deepInclude(paid, { state: "Paid" })
    assert.strictEqual(paid.address.received, "1.1")
    const now = await buckets()
    assert.closeTo(now.lockIn - before.lockIn, 0, 1e-9)
    assert.closeTo(now.free - before.free, 1.09, 1e-9, "orderAmount + excess (1.1 − 1.01)")
    assert.closeTo((await client.bucketsOf(fees, "ETH")).free - feesBefore, 0.01, 1e-9)
  })

  it("paid at once when final at once (confirmations 1), several incomes in one block", async () => {
    const t = await addCryptoTerminal(client, { confirmations: 1 })
    const order = await newOrder()
    const to = (await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })).address.address
    const before = await buckets()
    await pushOk(client, t.id, {
      height: 1,
      hash: "f1",
      parentHash: "f0",
      items: [
        { txHash: "fa", to, amount: "0.51" },
        { txHash: "fb", to, amount: "0.5" }
      ]
    })
    assert.strictEqual((await info(order.code)).state, "Paid")
    assert.closeTo((await buckets()).free - before.free, 1, 1e-9)
  })

  it("an income orphaned before final is reversed and the order is Started again", async () => {
    const { t, order, to } = await paying()
    const before = await buckets()
    await blockOk(client, t.id, "o", 1)
    await blockOk(client, t.id, "o", 2, [{ txHash: "ox", to, amount: "1.01" }])
    assert.strictEqual((await info(order.code)).state, "Processing")
    const reorg = await pushOk(client, t.id, { height: 2, hash: "o2b", parentHash: "o1" })
    assert.deepStrictEqual(reorg.orphaned, [2])
    const back = await info(order.code)
    assert.deepInclude(back, { state: "Started" })
    assert.strictEqual(back.address.received, "0")
    const now = await buckets()
    assert.closeTo(now.lockIn - before.lockIn, 0, 1e-9)
    assert.closeTo(now.free - before.free, 0, 1e-9)
    // The same transaction mined again on the new branch pays the order.
    await pushOk(client, t.id, {
      height: 3,
      hash: "o3",
      parentHash: "o2b",
      items: [{ txHash: "ox", to, amount: "1.01" }]
    })
    await blockOk(client, t.id, "o", 4)
    await blockOk(client, t.id, "o", 5)
    assert.strictEqual((await info(order.code)).state, "Paid")
    assert.closeTo((await buckets()).free - before.free, 1, 1e-9)
  })

  it("a RequirePartnerInfo terminal holds the order's income at finality until the merchant seals it; then Paid", async () => {
    await setup()
    const t = await addCryptoTerminal(client, { confirmations: 2, flags: 1 | 8 })
    const order = await newOrder()
    const to = (await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })).address.address
    const before = await buckets()
    const feesBefore = (await client.bucketsOf(fees, "ETH")).free
    const pushed = await blockOk(client, t.id, "r", 1, [{ txHash: "ra", from: someEvmAddress(), to, amount: "1.01" }])
    const txId = pushed.items[0].txId!
    await blockOk(client, t.id, "r", 2)
    await blockOk(client, t.id, "r", 3)
    // Final, but held: the order is not paid and the money waits in the merchant's lock_in.
    assert.strictEqual((await info(order.code)).state, "Processing")
    assert.closeTo((await buckets()).lockIn - before.lockIn, 1.01, 1e-9)
    assert.closeTo((await buckets()).free - before.free, 0, 1e-9)
    const awaiting = await client.call("GET", "/core/v1/wallet/list_txs_awaiting_partner_info", { sid: merchant.sid })
    assert.strictEqual(awaiting.status, 200, JSON.stringify(awaiting.body))
    assert.include(
      (awaiting.body.result as Array<any>).map((r) => String(r.id ?? r.txId)),
      txId,
      "the merchant sees the held income"
    )
    assertRejected(
      await client.call("POST", "/core/v1/wallet/init_refund", { sid: merchant.sid, body: { txId } }),
      400,
      errorCode.IncomeNotRefundable
    )
    const sealed = await client.call("POST", "/core/v1/wallet/update_tx_partner_info", {
      sid: merchant.sid,
      body: { txId, partnerInfo: "Payer Ltd" }
    })
    assert.strictEqual(sealed.status, 200, JSON.stringify(sealed.body))
    assert.strictEqual((await info(order.code)).state, "Paid")
    const now = await buckets()
    assert.closeTo(now.lockIn - before.lockIn, 0, 1e-9)
    assert.closeTo(now.free - before.free, 1, 1e-9, "orderAmount")
    assert.closeTo((await client.bucketsOf(fees, "ETH")).free - feesBefore, 0.01, 1e-9)
  })

  describe('an underpaid order expires (docs/PAYMENTS.md "Underpaid crypto")', () => {
    /** A Deposit tariff for these tests only (0.002 ETH to the fee wallet): a plain C15 Income pays it. */
    const withDepositFee = async (body: () => Promise<void>) => {
      await setup()
      const payment = {
        txClass: "Payment",
        currency: "ETH",
        feeFixed: "0.01",
        feePercent: "0",
        profitWalletId: fees.id
      }
      await client.setTariffs([
        payment,
        { txClass: "Deposit", currency: "ETH", feeFixed: "0.002", feePercent: "0", profitWalletId: fees.id }
      ])
      try {
        await body()
      } finally {
        await client.setTariffs([payment])
      }
    }
    const pastExpiry = async (started: { expiresAt: string }) => {
      const wait = Date.parse(started.expiresAt) + 300 - Date.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    }
    const feed = async (id: string) => (await shop.drain(app, undefined)).rows.filter((r) => r.id === id).at(-1)
    const incomeInfo = async (txId: string) => {
      const reply = await client.call("POST", "/core/v1/address_tx_info", { sid: merchant.sid, body: [txId] })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      return reply.body.result[0]
    }
    /** Money of the expiry: merchant lock_in −0.5, free +0.5 − 0.002, fee wallet +0.002; the Income's fee 0.002. */
    const assertPlain = async (before: { lockIn: number; free: number }, feesBefore: number, incomeTxId: string) => {
      const now = await buckets()
      assert.closeTo(now.lockIn - before.lockIn, 0, 1e-9, "lock_in released")
      assert.closeTo(now.free - before.free, 0.498, 1e-9, "a plain Income: A − the Deposit fee")
      assert.closeTo((await client.bucketsOf(fees, "ETH")).free - feesBefore, 0.002, 1e-9)
      assert.deepInclude(await incomeInfo(incomeTxId), { txState: 8, stage: "Credited", amount: "0.5", fee: "0.002" })
    }

    it("final short incomes before expiresAt: a read after expiresAt expires it; lock_in → free as a plain C15 Income", () =>
      withDepositFee(async () => {
        const { t, order, to, started } = await paying({ expiresInSeconds: 10 })
        const before = await buckets()
        const feesBefore = (await client.bucketsOf(fees, "ETH")).free
        const pushed = await blockOk(client, t.id, "x", 1, [{ txHash: "xa", to, amount: "0.5" }])
        await blockOk(client, t.id, "x", 2)
        await blockOk(client, t.id, "x", 3)
        assert.strictEqual((await info(order.code)).state, "Processing", "final but short")
        assert.closeTo((await buckets()).lockIn - before.lockIn, 0.5, 1e-9)
        await pastExpiry(started)
        const expired = await info(order.code)
        assert.deepInclude(expired, { state: "Expired", stateCode: 16, txState: 16 })
        await assertPlain(before, feesBefore, pushed.items[0].txId!)
        assertRejected(await gate("pay_crypto", order.code, { tokenNetworkId: t.id }), 400, 10301)
      }))

    it("nobody reads it: the sweep expires it within a beat (the feed shows Expired)", () =>
      withDepositFee(async () => {
        const { t, order, to } = await paying({ expiresInSeconds: 10 })
        const before = await buckets()
        const feesBefore = (await client.bucketsOf(fees, "ETH")).free
        const pushed = await blockOk(client, t.id, "y", 1, [{ txHash: "ya", to, amount: "0.5" }])
        await blockOk(client, t.id, "y", 2)
        await blockOk(client, t.id, "y", 3)
        let row: any
        for (const started = Date.now(); Date.now() - started < 30_000;) {
          row = await feed(order.id)
          if (row?.state === "Expired") break
          await new Promise((r) => setTimeout(r, 500))
        }
        assert.strictEqual(row?.state, "Expired", "the sweep (PAYMENT_SWEEP_SECONDS 5) expired it")
        await assertPlain(before, feesBefore, pushed.items[0].txId!)
      }))

    it("the short income turns final after expiresAt: the push that makes it final expires the order", () =>
      withDepositFee(async () => {
        const { t, order, to, started } = await paying({ expiresInSeconds: 3 })
        const before = await buckets()
        const feesBefore = (await client.bucketsOf(fees, "ETH")).free
        const pushed = await blockOk(client, t.id, "z", 1, [{ txHash: "za", to, amount: "0.5" }])
        await pastExpiry(started)
        // Seen, not final: a seen income holds expiry off.
        assert.strictEqual((await info(order.code)).state, "Processing")
        await blockOk(client, t.id, "z", 2)
        await blockOk(client, t.id, "z", 3)
        // The feed is a raw read (no Expire on read): Expired in it now is the push's own commit.
        assert.strictEqual((await feed(order.id))?.state, "Expired")
        await assertPlain(before, feesBefore, pushed.items[0].txId!)
      }))
  })

  it("income to an expired order's address is a plain Income of the merchant wallet", async () => {
    const { t, order, to } = await paying({ expiresInSeconds: 1 })
    await new Promise((r) => setTimeout(r, 1500))
    const before = await buckets()
    const pushed = await blockOk(client, t.id, "e", 1, [{ txHash: "ex", to, amount: "1.01" }])
    assert.strictEqual(pushed.items[0].walletId, merchant.id)
    const expired = await info(order.code)
    assert.deepInclude(expired, { state: "Expired" })
    await blockOk(client, t.id, "e", 2)
    await blockOk(client, t.id, "e", 3)
    assert.closeTo((await buckets()).free - before.free, 1.01, 1e-9)
  })

  it("memo networks: the order's own memo at the terminal's hot address", async () => {
    const t = await addCryptoTerminal(client, {
      typeNetwork: 5,
      typeContract: 0,
      addressContract: null,
      currencyId: "USDC",
      decimals: 6,
      defaultHotAddress: SOLANA_HOT,
      confirmations: 1
    })
    const order = await newOrder({ currency: "USDC" })
    const started = await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })
    assert.strictEqual(started.address.address, SOLANA_HOT)
    assert.match(started.address.memo, /^[0-9]{6,10}$/)
    assert.strictEqual(
      (await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })).address.memo,
      started.address.memo
    )
    const other = await newOrder({ currency: "USDC" })
    const otherMemo = (await gateOk("pay_crypto", other.code, { tokenNetworkId: t.id })).address.memo
    assert.notStrictEqual(otherMemo, started.address.memo)
    const pushed = await pushOk(client, t.id, {
      height: 1,
      hash: "m1",
      parentHash: "m0",
      items: [
        { txHash: "ma", to: SOLANA_HOT, memo: "1", amount: "1" },
        { txHash: "mb", to: SOLANA_HOT, memo: started.address.memo, amount: started.totalToPay }
      ]
    })
    assert.deepStrictEqual(
      pushed.items.map((i) => i.walletId),
      ["-4", merchant.id]
    )
    assert.strictEqual((await info(order.code)).state, "Paid")
    assert.strictEqual((await info(other.code)).state, "Started")
  })

  it("cancel_crypto racing an income: exactly one wins, the money follows the winner", async () => {
    const t = await addCryptoTerminal(client, { confirmations: 3 })
    await blockOk(client, t.id, "r", 10)
    for (let round = 1; round <= 4; round++) {
      const order = await newOrder()
      const to = (await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })).address.address
      const before = await buckets()
      const [cancel, push] = await Promise.all([
        gate("cancel_crypto", order.code, {}),
        pushOk(client, t.id, {
          height: 10 + round,
          hash: `r${10 + round}`,
          parentHash: `r${9 + round}`,
          items: [{ txHash: `rx${round}`, to, amount: "0.25" }]
        })
      ])
      assert.strictEqual(push.items[0].walletId, merchant.id)
      const after = await info(order.code)
      const now = await buckets()
      assert.closeTo(
        now.lockIn + now.free - before.lockIn - before.free,
        0.25,
        1e-9,
        "seen once, by the order or as a plain Income"
      )
      if (cancel.status === 200) {
        assert.strictEqual(after.state, "Created", `round ${round}`)
        assert.isNull(after.address)
      } else {
        assert.include([errorCode.PaymentPending, errorCode.PaymentOrderNotPayable], cancel.body.error?.code)
        assert.deepInclude(after, { state: "Processing" })
      }
      await client.assertLedgerSound(`round ${round}`)
    }
  })
})
