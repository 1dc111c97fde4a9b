/**
 * Restart safety of the exchange (ARCHITECTURE "Actors": a room is rebuilt from SQL on activation;
 * "Nothing is acknowledged before it is durable"): kill -9 during matching loses no acknowledged
 * order or fill and duplicates none, and the book after a restart equals the book before.
 *
 * The service runs against a database that outlives the process: with DATABASE_URL, a fresh database
 * on that server reused by every start; with the embedded default, one DATA_DIR reused by every start.
 *
 * Phase 1 — kill -9 mid-stream: six wallets over a seeded book; a seeded stream of create_order
 * requests (crossing and resting limit orders, market orders; 24 in flight at a time) on the public
 * BTC/USDT room; SIGKILL once a seeded number of them have been acknowledged. After a restart on the
 * same database:
 *  - every acknowledged order exists; a final acknowledgement (Completed/Canceled) reads back
 *    identically, an Active one reads back Active or Completed with figures only grown by maker fills;
 *  - every other order is explained by a distinct request whose answer was lost in the kill (so no
 *    request produced two orders and no refused request produced one);
 *  - every order's fills (order_tx_info) add up to its given / received + fee, and every trade appears
 *    once as taker and once as maker (no fill lost or doubled);
 *  - the ledger audit is sound, each wallet's lockOrders = Σ locked of its Active orders, and each
 *    wallet's free + lockOrders = funded − Σ given + Σ received of its orders;
 *  - get_trade_info is never crossed; once the room has been activated (which matches orders that were
 *    locked but never matched before the kill), it equals the book derived from the Active orders.
 * Phase 2 — the rebuilt book is the one matched against, and a quiescent book survives exactly: a
 * market sell and a market buy by budget sweep the book rebuilt after the kill (their fills must be
 * exactly its levels, best first); a fresh book (grid and odd prices, both sides, and a best bid of
 * two orders placed in a known time order); a snapshot of get_trade_info, every order and every
 * balance; SIGTERM (exit 0) and restart → the identical snapshot; kill -9 while idle and restart → the
 * identical snapshot; then orders placed after the restart match the rebuilt book: time priority
 * within the best bid survived (the older order fills whole before the younger gives one satoshi),
 * and sweeping both sides again fills exactly the levels, leaving no Active order anywhere.
 *
 * Both storage modes are feasible (test/support/Service.ts reuses a `databaseUrl` or a `dataDir`, and
 * `stop("SIGKILL", true)` is kill -9 keeping the data), so nothing here is skipped.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Reply } from "../support/Client.ts"
import {
  audit,
  boot,
  buyBody,
  client,
  create,
  fundedEach,
  GRID,
  halt,
  MID,
  priceLots,
  readBook,
  readOrders,
  resume,
  sellBody,
  setSweeper,
  setSweeperFunded,
  snapshot,
  sweep,
  sweeper,
  traders
} from "../support/ExchangeRestart.ts"
import {
  bookFromOrders,
  cost,
  type Currency,
  decimals,
  errorCode,
  levelText,
  toMinor,
  toText
} from "../support/ExchangeReads.ts"
import { usingRealPostgres } from "../support/Service.ts"
import { seeded } from "../unit/Random.ts"

const seed = Number(process.env.EXCHANGE_RESTART_SEED ?? 20_261_124)
const requestCount = 400
const inFlight = 24
// ---------------------------------------------------------------------------------------------

describe(`exchange restart safety (${usingRealPostgres() ? "PostgreSQL server: one database reused across starts" : "embedded PGlite: one DATA_DIR reused across starts"})`, () => {
  it(`seed ${seed}: kill -9 mid-stream loses and duplicates nothing; a quiescent book survives SIGTERM and kill -9 exactly`, async () => {
    const random = seeded(seed)
    const started = Date.now()
    await boot()
    const tariffs = await client.priv("POST", "set_tariffs", [
      { txClass: "Exchange", currency: "USDT", feeFixed: "0.01", feePercent: "0.1" },
      { txClass: "Exchange", currency: "BTC", feeFixed: "0", feePercent: "0.25" }
    ])
    assert.strictEqual(tariffs.status, 200, JSON.stringify(tariffs.body))
    const base = 660_000 + (seed % 1000) * 10
    for (let i = 0; i < 6; i++) {
      const created = await client.walletWithSession(String(base + i))
      traders.push(created)
      await client.fund(created.id, "BTC", toText(fundedEach.BTC, 8))
      await client.fund(created.id, "USDT", toText(fundedEach.USDT, 6))
    }
    setSweeper(await client.walletWithSession(String(base + 9)))

    // A seeded book: two asks and two bids per trader.
    const seedIds = new Set<string>()
    for (const [i, w] of traders.entries()) {
      for (const k of [0, 1]) {
        const ask = await create(w, sellBody(BigInt(random.int(1, 200)) * 10_000n, MID + GRID * BigInt(1 + i + 6 * k)))
        const bid = await create(w, buyBody(BigInt(random.int(1, 200)) * 10_000n, MID - GRID * BigInt(1 + i + 6 * k)))
        assert.strictEqual(ask.status, 200, JSON.stringify(ask.body))
        assert.strictEqual(bid.status, 200, JSON.stringify(bid.body))
        seedIds.add(ask.body.result.id).add(bid.body.result.id)
      }
    }

    // ---- Phase 1: a stream of placements, kill -9 mid-stream ------------------------------------
    interface Sent {
      readonly wallet: number
      readonly body: Record<string, unknown>
      outcome?: "ack" | "refused" | "lost"
      reply?: Reply
    }
    const requests: Array<Sent> = Array.from({ length: requestCount }, () => {
      const wallet = random.int(0, traders.length - 1)
      const sell = random.next() < 0.5
      const lots = random.next() < 0.6 ? BigInt(random.int(1, 200)) * 10_000n : BigInt(random.int(1, 2_000_000))
      const k = random.next()
      if (k < 0.15) {
        return {
          wallet,
          body: sell
            ? { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: toText(lots, 8), isLimit: false }
            : { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: toText(cost(MID, lots) + 1n, 6), isLimit: false }
        }
      }
      // Crossing (priced through the mid) or resting (on its own side), at grid or odd prices.
      const steps = BigInt(random.int(0, 12))
      const ticks =
        (k < 0.6
          ? sell
            ? MID - GRID * steps
            : MID + GRID * steps
          : sell
            ? MID + GRID * (steps + 1n)
            : MID - GRID * (steps + 1n)) + (random.next() < 0.3 ? BigInt(random.int(0, 999_999)) : 0n)
      return { wallet, body: sell ? sellBody(lots, ticks) : buyBody(lots, ticks) }
    })
    const killAfter = random.int(90, 170)
    let acknowledged = 0
    let killed: Promise<number | null> | undefined
    let next = 0
    const worker = async () => {
      while (killed === undefined && next < requests.length) {
        const sent = requests[next++]
        try {
          const reply = await create(traders[sent.wallet], sent.body)
          sent.reply = reply
          sent.outcome = reply.status === 200 ? "ack" : reply.status === 400 ? "refused" : "lost"
          if (reply.status === 200 && ++acknowledged >= killAfter && killed === undefined) killed = halt("SIGKILL")
        } catch {
          sent.outcome = "lost" // the connection died with the process: the answer never came
        }
      }
    }
    await Promise.all(Array.from({ length: inFlight }, worker))
    assert.isDefined(killed, `the stream ended before ${killAfter} acknowledgements`)
    await killed
    const acked = requests.filter((r) => r.outcome === "ack")
    const lost = requests.filter((r) => r.outcome === "lost")
    const refused = requests.filter((r) => r.outcome === "refused")
    for (const r of refused) assert.strictEqual(errorCode(r.reply!), 10002, JSON.stringify(r.reply!.body))
    assert.isAtLeast(lost.length, 1, "the kill landed while requests were in flight")

    await boot()
    await resume()
    // Before anything reaches the room: acknowledged orders are all there, as acknowledged or further filled.
    const orderRead = new Map<string, any>()
    for (const w of traders) for (const o of await readOrders(w.sid)) orderRead.set(o.id, o)
    for (const r of acked) {
      const ack = r.reply!.body.result
      const now = orderRead.get(ack.id)
      assert.isDefined(now, `acknowledged order ${ack.id} lost in the kill`)
      if (ack.state !== "Active") {
        assert.deepStrictEqual(
          [now.state, now.given, now.received, now.fee, now.locked],
          [ack.state, ack.given, ack.received, ack.fee, ack.locked],
          `final order ${ack.id}`
        )
      } else {
        // A resting order may since have been filled, or cancelled by a later order of its own wallet
        // (self-trade prevention) or left as dust (C14) — never lost.
        assert.include(["Active", "Completed", "Canceled"], now.state, `acknowledged Active order ${ack.id}`)
        const from = decimals[ack.fromCurrency as Currency],
          to = decimals[ack.toCurrency as Currency]
        assert.isTrue(
          toMinor(now.given, from) >= toMinor(ack.given, from) &&
            toMinor(now.received, to) >= toMinor(ack.received, to) &&
            toMinor(now.fee, to) >= toMinor(ack.fee, to) &&
            toMinor(now.locked, from) <= toMinor(ack.locked, from),
          `order ${ack.id} only grew by maker fills`
        )
      }
    }
    // Every other order is a distinct request whose answer was lost; none came from a refused one.
    const ackedIds = new Set(acked.map((r) => r.reply!.body.result.id as string))
    const keyOf = (wallet: number, body: any) =>
      `${wallet} ${body.fromCurrency} ${toMinor(body.fromAmount, decimals[body.fromCurrency as Currency])} ${body.toAmount == null ? "-" : toMinor(body.toAmount, decimals[body.toCurrency as Currency])}`
    const unexplained = new Map<string, number>()
    for (const r of lost) unexplained.set(keyOf(r.wallet, r.body), (unexplained.get(keyOf(r.wallet, r.body)) ?? 0) + 1)
    let recovered = 0
    for (const [i, w] of traders.entries()) {
      for (const o of await readOrders(w.sid)) {
        if (ackedIds.has(o.id) || seedIds.has(o.id)) continue
        const key = keyOf(i, o)
        const left = unexplained.get(key) ?? 0
        assert.isAbove(
          left,
          0,
          `order ${o.id} (${key}) matches no request whose answer was lost: a duplicate or a refused request's order`
        )
        unexplained.set(key, left - 1)
        recovered++
      }
    }
    assert.strictEqual(orderRead.size, seedIds.size + acked.length + recovered)
    const before = await audit("after kill -9 and restart, before the room is activated")
    // The room is activated by its next message: a probe far from the book, then cancelled. On
    // activation it matches the orders that were locked but never matched before the kill.
    await client.fund(sweeper.id, "BTC", "100")
    await client.fund(sweeper.id, "USDT", "10000000")
    setSweeperFunded({ BTC: 10_000_000_000n, USDT: 10_000_000_000_000n })
    const probe = await create(sweeper, { ...sellBody(1_000_000n, MID * 20n), postOnly: true })
    assert.strictEqual(probe.status, 200, JSON.stringify(probe.body))
    assert.strictEqual(
      (await client.call("POST", `/core/v1/market/cancel_order?id=${probe.body.result.id}`, { sid: sweeper.sid }))
        .status,
      200
    )
    const after = await audit("after the room's rebuild")
    const derived = bookFromOrders(after.active)
    assert.strictEqual(levelText(after.book.asks), levelText(derived.asks), "asks = the Active sells")
    assert.strictEqual(levelText(after.book.bids), levelText(derived.bids), "bids = the Active buys")
    console.log(
      `phase 1 (seed ${seed}): kill -9 at the ${killAfter}th acknowledgement; ${acked.length} acknowledged, ${refused.length} refused, ${lost.length} answers lost, ` +
        `${recovered} of those committed anyway, ${requests.length - acked.length - refused.length - lost.length} never sent; ` +
        `Active orders ${before.active.length} before the room's rebuild, ${after.active.length} after`
    )

    // ---- Phase 2: a quiescent book survives SIGTERM and kill -9 exactly --------------------------
    // The book rebuilt after the kill is the one the room matches against: sweeping each side with
    // a market order fills exactly its levels, best first.
    await sweep("the book rebuilt after kill -9")
    // A fresh book with both sides, and a best bid of two orders in a known time order.
    for (const [i, w] of traders.entries()) {
      assert.strictEqual((await create(w, sellBody(BigInt(i + 1) * 100_000n, MID + GRID * BigInt(30 + i)))).status, 200)
      assert.strictEqual(
        (await create(w, sellBody(BigInt(i + 1) * 10_000n + 7n, MID + GRID * BigInt(30 + i) + 333_333n))).status,
        200
      )
      assert.strictEqual((await create(w, buyBody(BigInt(i + 1) * 100_000n, MID - GRID * BigInt(30 + i)))).status, 200)
      assert.strictEqual(
        (await create(w, buyBody(BigInt(i + 1) * 10_000n + 7n, MID - GRID * BigInt(30 + i) - 333_333n))).status,
        200
      )
    }
    const topTicks = MID - 100n * 1_000_000n
    const first = await create(traders[0], buyBody(300_000n, topTicks))
    const second = await create(traders[1], buyBody(200_000n, topTicks))
    assert.strictEqual(first.body.result?.state, "Active", JSON.stringify(first.body))
    assert.strictEqual(second.body.result?.state, "Active", JSON.stringify(second.body))
    assert.strictEqual(toMinor(first.body.result.price, 6), topTicks)
    assert.strictEqual(toMinor(second.body.result.price, 6), topTicks)

    await audit("quiescent")
    const quiet = await snapshot()
    assert.strictEqual(quiet.bids.split(" ")[0], `${toText(topTicks, 6)}:500000:249500000`)

    assert.strictEqual(await halt("SIGTERM"), 0, "a clean stop exits 0")
    await boot()
    await resume()
    assert.deepStrictEqual(await snapshot(), quiet, "after SIGTERM and restart: the same book, orders and balances")

    await halt("SIGKILL")
    await boot()
    await resume()
    assert.deepStrictEqual(
      await snapshot(),
      quiet,
      "after kill -9 while idle and restart: the same book, orders and balances"
    )

    // Orders placed now match the rebuilt book. Time priority within the best bid survived the
    // rebuild: the older order fills whole before the younger gives a single satoshi.
    const hit = await create(sweeper, sellBody(300_001n, topTicks))
    assert.strictEqual(hit.body.result?.state, "Completed", JSON.stringify(hit.body))
    const firstNow = (await readOrders(traders[0].sid)).find((o) => o.id === first.body.result.id)
    const secondNow = (await readOrders(traders[1].sid)).find((o) => o.id === second.body.result.id)
    assert.strictEqual(firstNow.state, "Completed", "the older order at the level fills first")
    assert.strictEqual(secondNow.state, "Active")
    assert.strictEqual(
      toMinor(secondNow.received, 8) + toMinor(secondNow.fee, 8),
      1n,
      "the younger order gave one satoshi's worth"
    )
    assert.strictEqual(priceLots((await readBook(traders[0].sid)).bids).split(" ")[0], `${toText(topTicks, 6)}:199999`)
    await sweep("the book rebuilt after an idle kill -9")

    const final = await audit("after the sweeps")
    assert.strictEqual(final.book.asks.length + final.book.bids.length, 0, "both sides swept")
    assert.strictEqual(final.active.length, 0, "no Active order is left behind the swept book")
    console.log(
      `exchange restart (${usingRealPostgres() ? "PostgreSQL" : "embedded"}, seed ${seed}): ${((Date.now() - started) / 1000).toFixed(1)} s`
    )
  }, 300_000)
})
