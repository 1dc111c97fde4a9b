/**
 * Invariants of the exchange over real HTTP against the real service (SPEC "Market (session)",
 * "Order states", CONTRACT C14), each in its own private BTC/USDT room under the Exchange tariffs of
 * the stream's file (exchange-invariants-stream.test.ts, which owns the public book). A race: one
 * wallet's 20 concurrent sells (funds for 5) against another wallet's 20 concurrent crossing buys
 * (funds for 2) — exactly 5 and 2 are accepted, the rest get 10002, lockOrders sampled during the race
 * never exceeds what was funded, and the fills settle exactly. And a regression, pinned: a limit buy
 * whose budget runs out at a level that still has asks used to rest its rounding dust across that
 * level, which killed the room actor on every rebuild.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Reply } from "../support/Client.ts"
import { assertFillsAddUp, assertNotCrossed, errorCode, exchangeReads, levelText } from "../support/ExchangeReads.ts"
import { exchangeInvariantsFile, roomHelpers } from "../support/ExchangeInvariants.ts"

const { client } = exchangeInvariantsFile()
const { readBook, readOrders, readFills, readBalances } = exchangeReads(() => client)

// ---------------------------------------------------------------------------------------------
// Races and a regression, each in its own private BTC/USDT room (the stream owns the public book).

const { wallet, privateRoom, create } = roomHelpers(client)

describe("races on one wallet's money", () => {
  it("20 concurrent sells (funds for 5) race 20 concurrent crossing buys (funds for 2): exactly 5 and 2 accepted, locks never exceed the funds", async () => {
    const seller = await wallet(),
      buyer = await wallet()
    const roomKey = await privateRoom(seller, [buyer])
    await client.fund(seller.id, "BTC", "0.05")
    await client.fund(buyer.id, "USDT", "1000")
    const sell = { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: "0.01", toAmount: "500", roomKey }
    const buy = { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "500", toAmount: "0.01", roomKey }

    // Sample both wallets' buckets for as long as the race runs.
    let racing = true
    const samples: Array<{
      seller: Awaited<ReturnType<typeof readBalances>>
      buyer: Awaited<ReturnType<typeof readBalances>>
    }> = []
    const sampler = (async () => {
      while (racing) samples.push({ seller: await readBalances(seller.sid), buyer: await readBalances(buyer.sid) })
    })()
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0 ? create(seller, sell, `sell ${i}`) : create(buyer, buy, `buy ${i}`)
      )
    )
    racing = false
    await sampler
    const sells = replies.filter((_, i) => i % 2 === 0),
      buys = replies.filter((_, i) => i % 2 === 1)
    const accepted = (rs: Array<Reply>) => rs.filter((r) => r.status === 200)
    assert.strictEqual(
      accepted(sells).length,
      5,
      JSON.stringify(sells.map((r) => r.body.error?.code ?? r.body.result.state))
    )
    assert.strictEqual(
      accepted(buys).length,
      2,
      JSON.stringify(buys.map((r) => r.body.error?.code ?? r.body.result.state))
    )
    for (const r of [...sells, ...buys].filter((r) => r.status !== 200))
      assert.strictEqual(errorCode(r), 10002, JSON.stringify(r.body))

    assert.isAbove(samples.length, 0)
    for (const s of samples) {
      assert.isTrue(
        s.seller.BTC.lock <= 5_000_000n &&
          s.seller.BTC.free >= 0n &&
          s.seller.BTC.free + s.seller.BTC.lock <= 5_000_000n,
        JSON.stringify(s, (_, v) => (typeof v === "bigint" ? String(v) : v))
      )
      assert.isTrue(
        s.buyer.USDT.lock <= 1_000_000_000n &&
          s.buyer.USDT.free >= 0n &&
          s.buyer.USDT.free + s.buyer.USDT.lock <= 1_000_000_000n,
        JSON.stringify(s, (_, v) => (typeof v === "bigint" ? String(v) : v))
      )
    }
    // Two matches of 0.01 BTC at 50000 (each buy meets one sell, whichever arrived first):
    // the seller pays 0.01 + 0.1 % of 500 = 0.51 USDT per match, the buyer 0.25 % of 0.01 BTC.
    assert.deepStrictEqual(await readBalances(seller.sid), {
      BTC: { free: 0n, lock: 3_000_000n },
      USDT: { free: 998_980_000n, lock: 0n }
    })
    assert.deepStrictEqual(await readBalances(buyer.sid), {
      BTC: { free: 1_995_000n, lock: 0n },
      USDT: { free: 0n, lock: 0n }
    })
    const sellerOrders = await readOrders(seller.sid)
    assert.deepStrictEqual(sellerOrders.map((o) => o.state).sort(), [
      "Active",
      "Active",
      "Active",
      "Completed",
      "Completed"
    ])
    assert.deepStrictEqual(
      (await readOrders(buyer.sid)).map((o) => o.state),
      ["Completed", "Completed"]
    )
    const book = await readBook(seller.sid, roomKey)
    assert.strictEqual(levelText(book.asks), `50000:${3_000_000n}:${1_500_000_000n}`)
    assert.strictEqual(book.bids.length, 0)
    for (const info of await readFills(
      seller.sid,
      sellerOrders.map((o) => o.id)
    ))
      assertFillsAddUp(info, "race seller")
    await client.assertLedgerSound("after the race")
  })
})

describe("regression: a limit buy's rounding dust never rests across the book", () => {
  it("a buy whose budget runs out inside a level completes and returns its dust; the room keeps working", async () => {
    // Asks: 3 sats for 0.001499 USDT (1499/3 minor units a sat, shown 49966.6666667), 2000 sats at
    // exactly 500. The buy gives 0.501999 USDT for 0.00001002 BTC (a ratio of 501999/1002): its budget
    // takes the 3 sats for 1499 and 1001 of the 2000 for 500500 — nothing is left, so nothing rests
    // (a buy's leftover budget that buys less than a sat at its ratio used to rest across the book
    // and kill the room on every rebuild).
    const maker = await wallet(),
      taker = await wallet()
    const roomKey = await privateRoom(maker, [taker])
    await client.fund(maker.id, "BTC", "1")
    await client.fund(taker.id, "USDT", "10")
    const ask1 = await create(maker, {
      fromCurrency: "BTC",
      toCurrency: "USDT",
      fromAmount: "0.00000003",
      toAmount: "0.001499",
      roomKey
    })
    const ask2 = await create(maker, {
      fromCurrency: "BTC",
      toCurrency: "USDT",
      fromAmount: "0.00002",
      toAmount: "1",
      roomKey
    })
    assert.strictEqual(ask1.body.result?.price, "49966.6666667", JSON.stringify(ask1.body))
    assert.strictEqual(ask2.body.result?.price, "50000", JSON.stringify(ask2.body))
    const bought = await create(taker, {
      fromCurrency: "USDT",
      toCurrency: "BTC",
      fromAmount: "0.501999",
      toAmount: "0.00001002",
      roomKey
    })
    assert.strictEqual(bought.status, 200, JSON.stringify(bought.body))
    // Fees in this file: the buyer pays 0.25 % of 1004 sats (3 sats, rounded up); it receives more than toAmount (C14).
    assert.deepStrictEqual(
      [
        bought.body.result.state,
        bought.body.result.given,
        bought.body.result.received,
        bought.body.result.fee,
        bought.body.result.locked
      ],
      ["Completed", "0.501999", "0.00001001", "0.00000003", "0"]
    )
    assert.deepStrictEqual(await readBalances(taker.sid), {
      BTC: { free: 1001n, lock: 0n },
      USDT: { free: 9_498_001n, lock: 0n }
    })
    const book = await readBook(maker.sid, roomKey)
    assertNotCrossed(book, "after the buy")
    assert.strictEqual(levelText(book.asks), "50000:999:499500")
    assert.strictEqual(book.bids.length, 0)
    // The room still answers, and matches against what is left.
    const more = await create(taker, {
      fromCurrency: "USDT",
      toCurrency: "BTC",
      fromAmount: "0.4995",
      toAmount: "0.00000999",
      roomKey
    })
    assert.strictEqual(more.status, 200, JSON.stringify(more.body))
    assert.strictEqual(more.body.result.state, "Completed")
    assert.strictEqual((await readBook(maker.sid, roomKey)).asks.length, 0)
    await client.assertLedgerSound("after the regression")
  })
})
