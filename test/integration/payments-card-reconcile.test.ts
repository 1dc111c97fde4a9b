/**
 * Card acquiring reconciliation and session expiry over HTTP (CONTRACT C16 "Reconciliation"; docs/CARDS.md),
 * with ACQUIRING_RECONCILE_SECONDS and ACQUIRING_RECONCILE_AFTER_SECONDS at 1 s and a 4 s session TTL: a
 * payment whose webhook was lost (test card 4000000000000077) is found by reconciliation and settles once;
 * the webhook arriving after it is a duplicate; a session nobody completes expires (order Started, then
 * the order expires as any); a webhook racing reconciliation, and webhooks to two processes over one
 * PostgreSQL, still settle once. Balances checked at every step, then the ledger audit.
 */
import { assert, describe, it } from "@effect/vitest"
import { makeClient } from "../support/Client.ts"
import { CARDS, cardEnv, cardsOf } from "../support/Cards.ts"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { assertState } from "../support/PaymentTour.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"

const env = cardEnv({
  ACQUIRING_RECONCILE_SECONDS: "1",
  ACQUIRING_RECONCILE_AFTER_SECONDS: "1",
  ACQUIRING_SESSION_TTL_SECONDS: "4",
  PAYMENT_SWEEP_SECONDS: "1"
})
const { service, client } = serviceForFile({ env })
const c = cardsOf(client, service)

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

const sessionStatus = async (id: string) => (await c.sessionsOf(id)).map((s) => s.status).join(",")

describe("reconciliation", () => {
  it("a lost webhook (4000…0077): reconciliation finds the approval; the late webhook is a duplicate", async () => {
    const { order, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    const submitted = c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.lost))
    assert.strictEqual(submitted.outcome, "Approved")
    const settled = await c.eventually(
      "reconciled",
      () => c.info(order.code),
      (i) => i.state === "Paid"
    )
    assertState(settled, "Paid", 8, 8)
    assert.strictEqual(settled.acquiring.status, "Approved")
    const [session] = await c.sessionsOf(order.id)
    assert.isNotNull(session.checkedAt, "reconciliation checked it")
    await tour.step("reconciled: one settlement", paid)
    assert.deepStrictEqual(c.m.ok(await c.webhook(c.event(s, "10.6"))), { accepted: true, duplicate: true })
    await tour.step("the late webhook moves nothing")
  })

  it("a session nobody completes expires after the TTL: the order is Started again, then expires as any order", async () => {
    const { order, terminal, tour } = await shop({ expiresInSeconds: 10 })
    const s = c.m.ok(await c.payCard(order.code, terminal))
    const open = await c.info(order.code)
    assert.strictEqual(open.acquiring.status, "Pending")
    await c.eventually(
      "session expired",
      () => sessionStatus(order.id),
      (st) => st === "Expired"
    )
    const started = await c.info(order.code)
    assert.strictEqual(started.acquiring.status, "Expired")
    assertState(started, "Started", 2, 1, "Started again")
    assertRejected(
      await c.submitCard(s.checkoutUrl, CARDS.approve),
      400,
      10311,
      "the provider refuses an expired session"
    )
    assertRejected(await c.webhook(c.event(s, "10.6")), 400, 10314, "an approval contradicting Expired", "status")
    await tour.step("expired session: nothing moves")
    const expired = await c.eventually(
      "order expired",
      () => c.info(order.code),
      (o) => o.state === "Expired"
    )
    assertState(expired, "Expired", 16, 16)
    await tour.step("the order expired: nothing moves")
  })

  it("a webhook racing reconciliation: one settlement", async () => {
    const { order, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.lost))
    const event = c.event(s, "10.6")
    const answers: Array<boolean> = []
    const until = Date.now() + 3_000
    while (Date.now() < until) {
      const replies = await Promise.all([c.webhook(event), c.webhook(event)])
      for (const r of replies) answers.push(c.m.ok(r).duplicate)
      await new Promise((r) => setTimeout(r, 100))
    }
    assert.isAtMost(answers.filter((d) => !d).length, 1, "at most one webhook applied it")
    assertState(await c.info(order.code), "Paid", 8, 8)
    assert.strictEqual(await sessionStatus(order.id), "Approved")
    await tour.step("exactly one settlement", paid)
  })
})

describe("two processes over one PostgreSQL", () => {
  let peer: RunningService | undefined
  itWithServer(
    "webhooks to both processes at once, with both reconciling: one settlement",
    async () => {
      try {
        peer = await startService({ databaseUrl: service().databaseUrl, env })
        const other = cardsOf(
          makeClient(() => peer!),
          () => peer!
        )
        const { order, terminal, tour } = await shop()
        const s = c.m.ok(await c.payCard(order.code, terminal))
        c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.lost))
        const event = c.event(s, "10.6")
        const replies = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? c.webhook(event) : other.webhook(event)))
        )
        assert.isAtMost(replies.map((r) => c.m.ok(r).duplicate).filter((d) => !d).length, 1)
        await c.eventually(
          "paid",
          () => c.info(order.code),
          (i) => i.state === "Paid"
        )
        await new Promise((r) => setTimeout(r, 2_500)) // both processes' reconciliation runs again
        await tour.step("exactly one settlement across two processes", paid)
      } finally {
        await peer?.stop()
      }
    },
    90_000
  )
})
