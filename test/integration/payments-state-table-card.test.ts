/**
 * C16's order state table, the card rows, over HTTP (the rest of the table: payments-state-table-pay and
 * -payout; every other card behaviour: payments-card and payments-card-reconcile). One `it` per row or
 * condition; after every step every bucket of every column (merchant, the fee wallet, Treasury, Broker, in
 * each currency that can move) must have moved by exactly what the step names, then the ledger audit
 * (test/support/PaymentTour.ts; system wallets are read by SQL on a real PostgreSQL only).
 *
 * - Started (card) pay_card: one Pending session, nothing moves.
 * - Started (card) acquirer Approved: Paid — Treasury −totalToPay, merchant +orderAmount, fee → profit
 *   wallet; across currencies (a EUR order, a USDT card), the Broker takes both legs.
 * - Started (card) acquirer Declined: Started, a new pay_card may open a new session.
 * - Created, Started past expiresAt: a Pending session holds expiry off (the sweep leaves the order, a
 *   cancel is 10309), and the approval that comes late still pays it once.
 * Session expiry (TTL) → Started is in payments-card-reconcile (it needs a short TTL for the whole file).
 */
import { assert, describe, it } from "@effect/vitest"
import { CARDS, cardEnv, cardsOf } from "../support/Cards.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { assertState } from "../support/PaymentTour.ts"

const { service, client } = serviceForFile({ env: cardEnv({ PAYMENT_SWEEP_SECONDS: "1" }) })
const c = cardsOf(client, service)

const EUR_USDT = "1.08"

let rated = false

/** The shared USDT Card terminal and tariffs (Cards.ts), and a EUR → USDT rate for EUR orders. */
const setup = async () => {
  const shared = await c.setup()
  if (rated) return shared
  const rates = await client.priv("POST", "set_rates", [{ from: "EUR", to: "USDT", rate: EUR_USDT }])
  assert.strictEqual(rates.status, 200, JSON.stringify(rates.body))
  rated = true
  return shared
}

/** A 10 USDT (or EUR) order of a merchant of its own, and the tour over its columns. */
const shop = async (extra: Record<string, unknown> = {}) => {
  await setup()
  const o = await c.newOrder("10", extra)
  const tour = await c.tour.start([
    { name: "merchant", who: o.merchant, currency: "USDT" },
    { name: "fees", who: o.fees, currency: "USDT" },
    { name: "treasury", who: "Treasury", currency: "USDT" },
    { name: "broker", who: "Broker", currency: "USDT" },
    { name: "merchant EUR", who: o.merchant, currency: "EUR" },
    { name: "broker EUR", who: "Broker", currency: "EUR" }
  ])
  return { ...o, tour }
}

const paidUsdt = { merchant: { free: "10" }, fees: { free: "0.6" }, treasury: { free: "-10.6" } }

describe("C16 order state table, card rows, over HTTP", () => {
  it("Started (card) → Started: pay_card opens one Pending session; nothing moves", async () => {
    const { order, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    assertState(s.order, "Started", 2, 1)
    assert.strictEqual(s.order.acquiring.status, "Pending")
    await tour.step("pay_card")
  })

  it("Started (card) → Paid: acquirer Approved — Treasury −totalToPay, merchant +orderAmount, fee → profit wallet", async () => {
    const { order, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    assert.strictEqual(c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.approve)).outcome, "Approved")
    assertState(await c.info(order.code), "Paid", 8, 8)
    await tour.step("approved", paidUsdt)
  })

  it("Started (card) → Paid cross-currency: a USDT card pays a EUR order; the Broker takes both legs", async () => {
    const { order, terminal, tour } = await shop({ currency: "EUR" })
    const s = c.m.ok(await c.payCard(order.code, terminal))
    // payAmount = 10 × 1.08 × 1.01 = 10.908 USDT; fee 0.5 + 1% of it = 0.60908.
    assert.deepInclude(s.order, { currency: "EUR", payCurrency: "USDT", payAmount: "10.908", fee: "0.60908" })
    assert.strictEqual(s.order.totalToPay, "11.51708")
    await tour.step("pay_card for a EUR order")
    c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.approve))
    assertState(await c.info(order.code), "Paid", 8, 8)
    await tour.step("approved across currencies", {
      "merchant EUR": { free: "10" },
      "broker EUR": { free: "-10" },
      broker: { free: "10.908" },
      fees: { free: "0.60908" },
      treasury: { free: "-11.51708" }
    })
  })

  it("Started (card) → Started: acquirer Declined; a new pay_card opens a new session; nothing moves", async () => {
    const { order, terminal, tour } = await shop()
    const first = c.m.ok(await c.payCard(order.code, terminal))
    assert.strictEqual(c.m.ok(await c.submitCard(first.checkoutUrl, CARDS.decline)).outcome, "Declined")
    const after = await c.info(order.code)
    assertState(after, "Started", 2, 1)
    assert.strictEqual(after.acquiring.status, "Declined")
    const second = c.m.ok(await c.payCard(order.code, terminal))
    assert.notStrictEqual(second.acquiringId, first.acquiringId)
    await tour.step("declined, then a new session")
  })

  it("Started past expiresAt: a Pending session holds expiry off (cancel 10309); the late approval pays once", async () => {
    const { order, app, terminal, tour } = await shop({ expiresInSeconds: 2 })
    const s = c.m.ok(await c.payCard(order.code, terminal))
    await new Promise((r) => setTimeout(r, 3_500)) // past expiresAt, and at least two sweeps (1 s)
    const held = await c.info(order.code)
    assertState(held, "Started", 2, 1)
    assert.isBelow(Date.parse(held.expiresAt), Date.now(), "the order is past expiresAt")
    assertRejected(
      await c.m.call(app, "POST", `cancel_payment_order?id=${order.id}`),
      400,
      errorCode.PaymentPending,
      "a Pending session"
    )
    await tour.step("held past expiresAt")
    c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.approve))
    assertState(await c.info(order.code), "Paid", 8, 8)
    await tour.step("late approval", paidUsdt)
  })
})
