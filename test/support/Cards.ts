/**
 * Card acquiring over HTTP for test/integration/payments-card*.test.ts (CONTRACT C16 "Built-in card
 * acquiring"): a shop with a Card terminal (typeNetwork 100, USDT) and a fee wallet of its own, the
 * sandbox checkout (GET page, POST card), and provider webhooks signed here with the test's
 * ACQUIRER_WEBHOOK_SECRET (node:crypto HMAC-SHA256, as a provider would).
 */
import { assert } from "@effect/vitest"
import { createHmac } from "node:crypto"
import type { Party, Reply, TestClient } from "./Client.ts"
import { merchantOf } from "./Merchant.ts"
import { makeTour } from "./PaymentTour.ts"
import type { RunningService } from "./Service.ts"

export const WEBHOOK_SECRET = "card-test-secret-" + "0123456789abcdef"
export const CARDS = { approve: "4242424242424242", decline: "4000000000000002", lost: "4000000000000077" } as const

export const cardEnv = (extra: Record<string, string> = {}) => ({
  ACQUIRER: "sandbox",
  ACQUIRER_WEBHOOK_SECRET: WEBHOOK_SECRET,
  ...extra
})

let next = 0

export const cardsOf = (client: TestClient, service: () => RunningService) => {
  const m = merchantOf(client)
  const tour = makeTour(client, service)
  let shared: { terminal: string; fees: Party } | undefined

  /** The Card terminal and the Payment (0.5 + 1%) and Refund (0.2) tariffs, once per file. */
  const setup = async () => {
    if (shared !== undefined) return shared
    const fees = await client.party()
    await client.setTariffs([
      { txClass: "Payment", currency: "USDT", feeFixed: "0.5", feePercent: "1", profitWalletId: fees.id },
      { txClass: "Refund", currency: "USDT", feeFixed: "0.2", feePercent: "0", profitWalletId: fees.id }
    ])
    const reply = await client.priv("POST", "add_network", {
      typeNetwork: 100,
      typeContract: 0,
      currencyId: "USDT",
      decimals: 6,
      flags: 1,
      displayName: "Card",
      addressContract: null,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    shared = { terminal: String(reply.body.result.id), fees }
    return shared
  }

  /** A merchant wallet of its own, its app, and a new order of `amount` USDT. */
  const newOrder = async (amount = "10", extra: Record<string, unknown> = {}) => {
    const { terminal, fees } = await setup()
    const merchant = await client.party()
    const app = await m.createApp(merchant.id, `Card shop ${next++}`)
    const order = await m.put(app, { orderAmount: amount, externalId: `card-${process.pid}-${next++}`, ...extra })
    return { merchant, app, order, terminal, fees }
  }

  const payCard = (code: string, terminal: string) => m.gate("POST", "pay_card", code, { tokenNetworkId: terminal })

  const checkoutPath = (checkoutUrl: string) => new URL(checkoutUrl).pathname

  /** POST the card to the session's checkout (the page's script does this). */
  const submitCard = (checkoutUrl: string, cardNumber: string, expiry = "12/39", cvc = "123"): Promise<Reply> =>
    client.call("POST", checkoutPath(checkoutUrl), { body: { cardNumber, expiry, cvc } })

  /** A provider webhook for a session, signed with the test secret (overrides for the bad cases). */
  const webhook = (
    event: Record<string, unknown>,
    options: { timestamp?: string; signature?: string; secret?: string; omit?: boolean; raw?: string } = {}
  ): Promise<Reply> => {
    const raw = options.raw ?? JSON.stringify(event)
    const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000))
    const signature =
      options.signature ??
      createHmac("sha256", options.secret ?? WEBHOOK_SECRET)
        .update(timestamp + "." + raw)
        .digest("hex")
    const headers: Record<string, string> = { "content-type": "application/json" }
    if (options.omit !== true) {
      headers["x-acquirer-timestamp"] = timestamp
      headers["x-acquirer-signature"] = signature
    }
    return client.call("POST", "/payment/v1/acquiring_webhook", { raw, headers })
  }

  const event = (
    session: { acquiringId: string },
    amount: string,
    status = "Approved",
    eventId = `evt-test-${next++}`
  ) => ({
    eventId,
    acquiringId: session.acquiringId,
    status,
    amount,
    currency: "USDT",
    occurredAt: new Date().toISOString()
  })

  const info = (code: string) => m.gateOk("GET", "get_order_info", code)

  const sessionsOf = async (id: string) => {
    const reply = await client.priv("GET", `get_payment_order_info?id=${id}`)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result.acquiringSessions as Array<any>
  }

  /** Polls until `check` holds (reconciliation runs on its own schedule). */
  const eventually = async <A>(what: string, read: () => Promise<A>, check: (a: A) => boolean, ms = 20_000) => {
    const until = Date.now() + ms
    for (;;) {
      const value = await read()
      if (check(value)) return value
      if (Date.now() > until) assert.fail(`${what}: not reached in ${ms} ms: ${JSON.stringify(value)}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  }

  return { m, tour, setup, newOrder, payCard, submitCard, webhook, event, info, sessionsOf, eventually, checkoutPath }
}
