/**
 * C19 §1: the card sandbox is opt-in. A service started with defaults (no ACQUIRER) has no sandbox: its
 * pages are 404, card terminals are offered with `available: false`, and pay_card and
 * create_acquiring_order answer 400 10414 before anything is read or moved. The attack — a
 * merchant pays its own 1,000,000 USDT order with the public test card 4242… — takes nothing; the ledger
 * audit runs after each test (serviceForFile). The sandbox itself (ACQUIRER=sandbox, its start warning):
 * payments-card.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { CARDS, cardsOf } from "../support/Cards.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { assertState } from "../support/PaymentTour.ts"

const { service, client } = serviceForFile({ env: { ACQUIRER_WEBHOOK_SECRET: "card-test-secret-0123456789abcdef" } })
const c = cardsOf(client, service)

describe("ACQUIRER unset (off)", () => {
  it("the issue's attack: a merchant's own 1,000,000 USDT order paid with 4242… is refused 10414; nothing moves", async () => {
    const { merchant, app, order, terminal, fees } = await c.newOrder("1000000")
    const tour = await c.tour.start([
      { name: "merchant", who: merchant, currency: "USDT" },
      { name: "fees", who: fees, currency: "USDT" },
      { name: "treasury", who: "Treasury", currency: "USDT" }
    ])
    assertRejected(await c.payCard(order.code, terminal), 400, errorCode.SandboxOff, "pay_card", "ACQUIRER")
    // The sandbox's checkout is not there to take the card, whatever id is guessed.
    for (const path of ["/acquirer/v1/checkout/acq_x", "/acquirer/v1/checkout.js", "/acquirer/v1/checkout.css"])
      assert.strictEqual((await fetch(service().base + path)).status, 404, path)
    const post = await client.call("POST", "/acquirer/v1/checkout/acq_x", {
      body: { cardNumber: CARDS.approve, expiry: "12/39", cvc: "123" }
    })
    assert.strictEqual(post.status, 404)
    // The private shortcut that opens and pays in one call is refused too, before an order is made.
    const body = { appId: app.appId, currency: "USDT", orderAmount: "1000000", externalId: `own-${app.appId}` }
    assertRejected(
      await client.priv("POST", "create_acquiring_order", { ...body, terminalId: terminal }),
      400,
      errorCode.SandboxOff,
      "create_acquiring_order"
    )
    const { rows } = await c.m.drain(app, undefined)
    assert.deepStrictEqual(
      rows.map((o) => o.id),
      [order.id],
      "create_acquiring_order made no order"
    )
    // The order was not started on the card terminal either.
    const info = await c.info(order.code)
    assertState(info, "Created", 1, 1)
    await tour.step("every card attempt refused: nothing moves")
  })

  it("card terminals are offered with available: false; starting on one is 10303", async () => {
    const { order, terminal } = await c.newOrder("10")
    const offers = c.m.ok(await c.m.gate("GET", "get_terminals", order.code)) as Array<any>
    const card = offers.find((t) => t.id === terminal)
    assert.isDefined(card, "the card terminal is still listed")
    assert.isFalse(card.available)
    const generic = (await client.call("GET", "/payment/v1/get_terminals?currency=USDT")).body.result as Array<any>
    assert.isFalse(generic.find((t) => t.id === terminal).available)
    assertRejected(
      await c.m.gate("POST", "payment_order_start", order.code, { tokenNetworkId: terminal }),
      400,
      errorCode.TerminalNotAvailable
    )
    assertState(await c.info(order.code), "Created", 1, 1)
  })
})
