/**
 * Card payments through the built-in sandbox acquirer over HTTP (CONTRACT C16 "Built-in card acquiring";
 * docs/CARDS.md): pay_card opens one Pending session (a repeat returns it), the payer's card at the
 * sandbox checkout decides it, the sandbox's signed webhook (real HTTP to PUBLIC_BASE_URL) settles the
 * order exactly once — Treasury −totalToPay, merchant free +orderAmount, the fee wallet +fee — and
 * replays, bad signatures, stale timestamps and mismatches move nothing. Each test ends with the
 * ledger audit (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import { CARDS, cardEnv, cardsOf } from "../support/Cards.ts"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { assertState } from "../support/PaymentTour.ts"

const { service, client } = serviceForFile({ env: cardEnv() })
const c = cardsOf(client, service)

/** A new order of 10 USDT (fee 0.5 + 1% = 0.6, totalToPay 10.6) and the tour's columns over it. */
const shop = async (extra: Record<string, unknown> = {}) => {
  const o = await c.newOrder("10", extra)
  const tour = await c.tour.start([
    { name: "merchant", who: o.merchant, currency: "USDT" },
    { name: "fees", who: o.fees, currency: "USDT" },
    { name: "treasury", who: "Treasury", currency: "USDT" }
  ])
  return { ...o, tour }
}

const paid = { merchant: { free: "10" }, fees: { free: "0.6" }, treasury: { free: "-10.6" } }

describe("pay_card and the sandbox checkout", () => {
  it("4242 approves: one session, the webhook settles the order once; a repeat pay_card returns the session", async () => {
    const { order, terminal, tour } = await shop()
    const first = c.m.ok(await c.payCard(order.code, terminal))
    assert.match(first.acquiringId, /^acq_[A-Za-z0-9_-]{22}$/)
    assert.strictEqual(first.checkoutUrl, `${service().base}/acquirer/v1/checkout/${first.acquiringId}`)
    assertState(first.order, "Started", 2, 1)
    assert.deepStrictEqual(first.order.acquiring, {
      acquiringId: first.acquiringId,
      status: "Pending",
      checkoutUrl: first.checkoutUrl
    })
    assert.strictEqual(first.order.totalToPay, "10.6")
    const again = c.m.ok(await c.payCard(order.code, terminal))
    assert.strictEqual(again.acquiringId, first.acquiringId)
    assert.strictEqual(again.checkoutUrl, first.checkoutUrl)
    await tour.step("session opened: nothing moves")

    const page = await fetch(first.checkoutUrl)
    assert.strictEqual(page.status, 200)
    assert.match(page.headers.get("content-type") ?? "", /text\/html/)
    assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'self'/)
    const html = await page.text()
    for (const hook of ["10.6", "USDT", 'name="cardNumber"', 'name="expiry"', 'name="cvc"', 'type="submit"'])
      assert.include(html, hook)
    assert.notMatch(html, /<script>(?!<)/, "no inline script")
    assert.notMatch(html, /https?:\/\/(?!127\.0\.0\.1)/, "nothing from another origin")
    const js = await fetch(`${service().base}/acquirer/v1/checkout.js`)
    assert.strictEqual(js.status, 200)
    assert.match(js.headers.get("content-type") ?? "", /javascript/)

    const submitted = c.m.ok(await c.submitCard(first.checkoutUrl, CARDS.approve))
    assert.deepStrictEqual(submitted, {
      acquiringId: first.acquiringId,
      outcome: "Approved",
      redirectUrl: order.payUrl
    })
    const after = await c.info(order.code)
    assertState(after, "Paid", 8, 8)
    assert.strictEqual(after.acquiring.status, "Approved")
    await tour.step("approved: Treasury pays totalToPay, merchant +orderAmount, fee wallet +fee", paid)

    assertRejected(await c.submitCard(first.checkoutUrl, CARDS.approve), 400, 10311, "a decided session")
    assertRejected(await c.payCard(order.code, terminal), 400, 10302, "paid: no new session")
    await tour.step("nothing more moves")
  })
})
