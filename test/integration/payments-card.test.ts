/**
 * Card payments through the built-in sandbox acquirer over HTTP (CONTRACT C16 "Built-in card acquiring";
 * docs/CARDS.md): pay_card opens one Pending session (a repeat returns it), the payer's card at the
 * sandbox checkout decides it, the sandbox's signed webhook (real HTTP to PUBLIC_BASE_URL) settles the
 * order exactly once — Treasury −totalToPay, merchant free +orderAmount, the fee wallet +fee — and
 * replays, bad signatures, stale timestamps and mismatches move nothing. Each test ends with the
 * ledger audit (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CARDS, cardEnv, cardsOf } from "../support/Cards.ts"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { assertState } from "../support/PaymentTour.ts"
import { makeClient, type Reply } from "../support/Client.ts"
import { startService } from "../support/Service.ts"

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
  it("ACQUIRER=sandbox is said once at start: the line names it and says test cards create money (C19 §1)", () => {
    const lines = service()
      .log()
      .split("\n")
      .filter((line) => line.includes("ACQUIRER=sandbox"))
    assert.strictEqual(lines.length, 1, service().log())
    assert.include(lines[0], "test cards")
    assert.include(lines[0], "create money")
  })

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

  it("4000…0002 declines: Started again; a new pay_card opens a new session, which then approves", async () => {
    const { order, terminal, tour } = await shop({
      returnUrlSuccess: "https://shop.example/ok",
      returnUrlFail: "https://shop.example/fail"
    })
    const first = c.m.ok(await c.payCard(order.code, terminal))
    const declined = c.m.ok(await c.submitCard(first.checkoutUrl, CARDS.decline))
    assert.deepStrictEqual(declined, {
      acquiringId: first.acquiringId,
      outcome: "Declined",
      redirectUrl: "https://shop.example/fail"
    })
    const back = await c.info(order.code)
    assertState(back, "Started", 2, 1)
    assert.strictEqual(back.acquiring.status, "Declined")
    await tour.step("declined: nothing moves")
    const second = c.m.ok(await c.payCard(order.code, terminal))
    assert.notStrictEqual(second.acquiringId, first.acquiringId)
    assert.strictEqual(second.order.acquiring.status, "Pending")
    const approved = c.m.ok(await c.submitCard(second.checkoutUrl, CARDS.approve))
    assert.strictEqual(approved.redirectUrl, "https://shop.example/ok")
    assertState(await c.info(order.code), "Paid", 8, 8)
    await tour.step("the second session approved: one settlement", paid)
    const sessions = await c.sessionsOf(order.id)
    assert.deepStrictEqual(
      sessions.map((s) => [s.acquiringId, s.status, s.amount, s.currency, s.code, s.orderId, s.terminalId]),
      [
        [first.acquiringId, "Declined", "10.6", "USDT", order.code, order.id, terminal],
        [second.acquiringId, "Approved", "10.6", "USDT", order.code, order.id, terminal]
      ]
    )
  })

  it("a well-formed card whose check digit fails or whose expiry has passed is Declined, not 10001", async () => {
    const { order, terminal, tour } = await shop()
    for (const [number, expiry] of [
      ["4242424242424241", "12/39"],
      [CARDS.approve, "01/20"]
    ]) {
      const s = c.m.ok(await c.payCard(order.code, terminal))
      const declined = c.m.ok(await c.submitCard(s.checkoutUrl, number, expiry))
      assert.deepStrictEqual(declined, { acquiringId: s.acquiringId, outcome: "Declined", redirectUrl: order.payUrl })
      const back = await c.info(order.code)
      assertState(back, "Started", 2, 1)
      assert.strictEqual(back.acquiring.status, "Declined", `${number} ${expiry}`)
    }
    await tour.step("declined twice: nothing moves")
  })

  it("checkout errors: unknown session 404 10310; a malformed card 10001 leaves the session Pending", async () => {
    const { order, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    assertRejected(await client.call("GET", "/acquirer/v1/checkout/acq_nope"), 404, 10310, "GET unknown")
    assertRejected(
      await client.call("POST", "/acquirer/v1/checkout/acq_nope", {
        body: { cardNumber: CARDS.approve, expiry: "12/39", cvc: "123" }
      }),
      404,
      10310,
      "POST unknown"
    )
    assertRejected(await c.submitCard(s.checkoutUrl, "42424242424"), 400, 10001, "too short", "cardNumber")
    assertRejected(await c.submitCard(s.checkoutUrl, CARDS.approve, "13/30"), 400, 10001, "bad expiry", "expiry")
    assertRejected(await c.submitCard(s.checkoutUrl, CARDS.approve, "12/39", "1"), 400, 10001, "bad cvc", "cvc")
    assertRejected(await client.call("POST", c.checkoutPath(s.checkoutUrl), { raw: "nope" }), 400, 10001, "not JSON")
    assert.strictEqual((await c.info(order.code)).acquiring.status, "Pending")
    await tour.step("nothing moves")
    c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.approve))
    await tour.step("approved once", paid)
  })

  it("pay_card on a terminal that is not a Card one: 10303; an order paid by card cannot be canceled while Pending (10309)", async () => {
    const { order, app, terminal, tour } = await shop()
    const internal = (await client.priv("GET", "tokens_networks")).body.result.find(
      (x: any) => x.typeNetwork === 240
    ).id
    assertRejected(await c.payCard(order.code, String(internal)), 400, 10303, "internal terminal")
    c.m.ok(await c.payCard(order.code, terminal))
    assertRejected(await c.m.call(app, "POST", `cancel_payment_order?id=${order.id}`), 400, 10309, "Pending session")
    await tour.step("nothing moves")
  })
})

describe("the acquirer webhook", () => {
  it("replayed and late webhooks answer duplicate and move nothing; a contradicting status is 10314", async () => {
    const { order, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.approve))
    await tour.step("approved", paid)
    const replay = await c.webhook(c.event(s, "10.6", "Approved"))
    assert.deepStrictEqual(c.m.ok(replay), { accepted: true, duplicate: true })
    const again = await c.webhook(c.event(s, "10.6", "Approved", "evt-fixed"))
    assert.deepStrictEqual(c.m.ok(again), { accepted: true, duplicate: true })
    assert.deepStrictEqual(c.m.ok(await c.webhook(c.event(s, "10.6", "Approved", "evt-fixed"))), {
      accepted: true,
      duplicate: true
    })
    assertRejected(await c.webhook(c.event(s, "10.6", "Declined")), 400, 10314, "contradicting", "status")
    assertState(await c.info(order.code), "Paid", 8, 8)
    await tour.step("replays move nothing")
  })

  it("bad signature, missing headers, stale timestamp: 401 10313; other amount, currency or session: 10314; then a good one settles once", async () => {
    const { order, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    const good = c.event(s, "10.6")
    assertRejected(await c.webhook(good, { secret: "another-secret" }), 401, 10313, "other secret")
    assertRejected(await c.webhook(good, { signature: "00".repeat(32) }), 401, 10313, "wrong signature")
    assertRejected(await c.webhook(good, { signature: "not-hex" }), 401, 10313, "malformed signature")
    assertRejected(await c.webhook(good, { omit: true }), 401, 10313, "no headers")
    const old = String(Math.floor(Date.now() / 1000) - 301)
    assertRejected(await c.webhook(good, { timestamp: old }), 401, 10313, "stale timestamp")
    const future = String(Math.floor(Date.now() / 1000) + 301)
    assertRejected(await c.webhook(good, { timestamp: future }), 401, 10313, "future timestamp")
    assertRejected(await c.webhook(c.event(s, "10.5")), 400, 10314, "other amount", "amount")
    assertRejected(await c.webhook({ ...good, currency: "EUR" }), 400, 10314, "other currency", "currency")
    assertRejected(await c.webhook({ ...good, acquiringId: "acq_unknown" }), 400, 10314, "unknown", "acquiringId")
    assert.strictEqual((await c.info(order.code)).acquiring.status, "Pending")
    await tour.step("refused webhooks move nothing")
    assert.deepStrictEqual(c.m.ok(await c.webhook(good)), { accepted: true, duplicate: false })
    assertState(await c.info(order.code), "Paid", 8, 8)
    await tour.step("the good one settles", paid)
  })

  it("a correctly signed but malformed body is 400 10001 naming the field (decoded before anything is read or moved); then the good one settles once", async () => {
    const { order, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    const good = c.event(s, "10.6")
    const { occurredAt: _o, ...undated } = good
    const malformed: ReadonlyArray<readonly [string, Reply, string]> = [
      ["not JSON", await c.webhook(good, { raw: "{not json" }), "body"],
      ["an array", await c.webhook(good, { raw: JSON.stringify([good]) }), "body"],
      ["no occurredAt", await c.webhook(undated), "occurredAt"],
      ["occurredAt not a date-time", await c.webhook({ ...good, occurredAt: "yesterday" }), "occurredAt"],
      ["unknown status", await c.webhook({ ...good, status: "Paid" }), "status"],
      ["a number amount", await c.webhook({ ...good, amount: 10.6 }), "amount"],
      ["a comma amount", await c.webhook({ ...good, amount: "10,6" }), "amount"],
      ["an empty eventId", await c.webhook({ ...good, eventId: "" }), "eventId"],
      ["an eventId object", await c.webhook({ ...good, eventId: { id: 1 } }), "eventId"],
      ["a null acquiringId", await c.webhook({ ...good, acquiringId: null }), "acquiringId"]
    ]
    for (const [label, reply, field] of malformed) assertRejected(reply, 400, 10001, label, field)
    assert.strictEqual((await c.info(order.code)).acquiring.status, "Pending")
    await tour.step("malformed webhooks move nothing")
    assert.deepStrictEqual(c.m.ok(await c.webhook(good)), { accepted: true, duplicate: false })
    assertState(await c.info(order.code), "Paid", 8, 8)
    await tour.step("the good one settles", paid)
  })

  it("two identical webhooks at once: one settlement, the other a duplicate", async () => {
    const { order, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    const event = c.event(s, "10.6")
    const replies = await Promise.all(Array.from({ length: 6 }, () => c.webhook(event)))
    const answers = replies.map((r) => c.m.ok(r).duplicate).sort()
    assert.deepStrictEqual(answers, [false, true, true, true, true, true])
    assertState(await c.info(order.code), "Paid", 8, 8)
    await tour.step("exactly one settlement", paid)
  })
})

describe("refunds and private actions", () => {
  it("a card refund over refund_payment: destination Card, Treasury +payoutAmount, merchant −(amount + fee)", async () => {
    const { order, app, terminal, tour } = await shop()
    const s = c.m.ok(await c.payCard(order.code, terminal))
    c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.approve))
    await tour.step("paid", paid)
    const refund = c.m.ok(
      await c.m.call(app, "POST", "refund_payment", { id: order.id, amount: "4", externalId: `r-${order.id}` })
    )
    assert.deepInclude(refund, {
      destination: "Card",
      amount: "4",
      fee: "0.2",
      payoutAmount: "4",
      payoutCurrency: "USDT",
      state: "Finished"
    })
    assertState(await c.m.order(app, order.id), "PartiallyRefunded", 9, 8)
    await tour.step("refunded to the card", {
      merchant: { free: "-4.2" },
      fees: { free: "0.2" },
      treasury: { free: "4" }
    })
    const detail = c.m.ok(await client.priv("GET", `get_payment_order_info?id=${order.id}`))
    assert.deepStrictEqual(
      detail.refunds.map((r: any) => [r.refundId, r.destination, r.state]),
      [[refund.refundId, "Card", "Finished"]],
      "the private view lists the order's refunds"
    )
    assert.deepStrictEqual(
      detail.acquiringSessions.map((x: any) => [x.acquiringId, x.status]),
      [[s.acquiringId, "Approved"]]
    )
  })

  it("create_acquiring_order, pending_acquiring_txs and get_payment_order_info's sessions", async () => {
    const { app, terminal, tour } = await shop()
    const body = { appId: app.appId, currency: "USDT", orderAmount: "10", externalId: `acq-${app.appId}` }
    const created = c.m.ok(await client.priv("POST", "create_acquiring_order", { ...body, terminalId: terminal }))
    assertState(created.order, "Started", 2, 1)
    assert.strictEqual(created.order.terminalId, terminal)
    assert.strictEqual(created.order.paymentMethod, "CardAcquiring")
    assert.strictEqual(created.checkoutUrl, `${service().base}/acquirer/v1/checkout/${created.acquiringId}`)
    const internal = (await client.priv("GET", "tokens_networks")).body.result.find(
      (x: any) => x.typeNetwork === 240
    ).id
    assertRejected(
      await client.priv("POST", "create_acquiring_order", { ...body, externalId: "x2", terminalId: internal }),
      400,
      10303,
      "not a Card terminal"
    )
    for (const bad of ["0", "1001", "x", "-1"])
      assertRejected(
        await client.priv("GET", `pending_acquiring_txs?limit=${bad}`),
        400,
        10001,
        `limit=${bad}`,
        "limit"
      )
    const pending = c.m.ok(await client.priv("GET", "pending_acquiring_txs?limit=1000")) as Array<any>
    const mine = pending.find((p) => p.acquiringId === created.acquiringId)
    assert.deepStrictEqual(mine, {
      acquiringId: created.acquiringId,
      code: created.order.code,
      orderId: created.order.id,
      appId: app.appId,
      terminalId: terminal,
      amount: "10.6",
      currency: "USDT",
      status: "Pending",
      createdAt: mine.createdAt,
      checkedAt: null
    })
    const times = pending.map((p) => p.createdAt)
    assert.deepStrictEqual(times, [...times].sort(), "oldest first")
    assert.isTrue(pending.every((p) => p.status === "Pending"))
    assert.deepStrictEqual(await c.sessionsOf(created.order.id), [mine])
    c.m.ok(await c.submitCard(created.checkoutUrl, CARDS.approve))
    const afterPay = c.m.ok(await client.priv("GET", "pending_acquiring_txs")) as Array<any>
    assert.isUndefined(afterPay.find((p) => p.acquiringId === created.acquiringId))
    assert.strictEqual((await c.sessionsOf(created.order.id))[0].status, "Approved")
    await tour.step("paid through create_acquiring_order's session", paid)
  })
})

describe("settings", () => {
  it("PUBLIC_BASE_URL unset: payUrl and checkoutUrl are on the port the service runs on, and the sandbox's webhook reaches it", async () => {
    // The file's service runs on a random free port with no PUBLIC_BASE_URL (C16: default http://HOST:PORT).
    const { order, terminal, tour } = await shop()
    assert.notStrictEqual(new URL(service().base).port, "8080")
    assert.strictEqual(order.payUrl, `${service().base}/pay?code=${order.code}`)
    const s = c.m.ok(await c.payCard(order.code, terminal))
    assert.strictEqual(s.checkoutUrl, `${service().base}/acquirer/v1/checkout/${s.acquiringId}`)
    assert.strictEqual((await fetch(s.checkoutUrl)).status, 200)
    c.m.ok(await c.submitCard(s.checkoutUrl, CARDS.approve))
    // Reconciliation waits ACQUIRING_RECONCILE_AFTER_SECONDS (60): Paid now is the sandbox's own webhook.
    assertState(await c.info(order.code), "Paid", 8, 8)
    await tour.step("approved through the webhook to itself", paid)
  })

  it("an ACQUIR* setting out of range stops the start, naming it", async () => {
    for (const [name, value] of [
      ["ACQUIRER", "on"],
      ["ACQUIRING_RECONCILE_SECONDS", "0"],
      ["ACQUIRING_RECONCILE_SECONDS", "3601"],
      ["ACQUIRER_WEBHOOK_TOLERANCE_SECONDS", "abc"],
      ["ACQUIRING_SESSION_TTL_SECONDS", "0"],
      ["ACQUIRING_RECONCILE_AFTER_SECONDS", "-1"]
    ]) {
      // The running service's database (PostgreSQL) or a scratch directory: nothing is created for a start that fails.
      const dataDir = mkdtempSync(join(tmpdir(), "card-settings-"))
      const failed = await startService({ env: { [name]: value }, databaseUrl: service().databaseUrl, dataDir }).then(
        async (s) => {
          await s.stop()
          return ""
        },
        (e: Error) => e.message
      )
      rmSync(dataDir, { recursive: true, force: true })
      assert.include(failed, name, `${name}=${value} must stop the start`)
    }
  }, 120_000)

  it("ACQUIRER_WEBHOOK_SECRET unset: one is generated and stored; the sandbox's webhooks verify with it, the test's do not", async () => {
    const own = await startService({ env: { ACQUIRER: "sandbox" } })
    try {
      const other = cardsOf(
        makeClient(() => own),
        () => own
      )
      const { order, terminal } = await other.newOrder("10")
      const s = other.m.ok(await other.payCard(order.code, terminal))
      assertRejected(await other.webhook(other.event(s, "10.6")), 401, 10313, "signed with another secret")
      other.m.ok(await other.submitCard(s.checkoutUrl, CARDS.approve))
      assertState(await other.info(order.code), "Paid", 8, 8)
      await makeClient(() => own).assertLedgerSound("generated secret")
    } finally {
      await own.stop()
    }
  }, 120_000)
})
