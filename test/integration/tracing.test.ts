/**
 * OpenTelemetry traces (issue #28 item 3): a service started with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a
 * local OTLP/HTTP receiver (this file's node:http server, JSON) exports the spans of one two-step transfer:
 * the HTTP request's server span, the wallet actor's message span in the same trace (effect/cluster
 * propagates the caller's span into the actor), and the ledger's group-commit span, all under
 * OTEL_SERVICE_NAME. Without the variable (every other test file's service) no exporter exists.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { serviceForFile } from "../support/Fixtures.ts"
import { webhookEnv, webhookShopOf } from "../support/WebhookShop.ts"
import { type Receiver, startReceiver, type Verify, verifierFromDocs } from "../support/WebhookReceiver.ts"

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes?: ReadonlyArray<{ key: string; value: Record<string, unknown> }>
  readonly links?: ReadonlyArray<{ traceId: string; spanId: string }>
}

const received: Array<{ service: string | undefined; span: Span }> = []
let receiver: Server
let receiverUrl = ""
let hooks: Receiver
let verify: Verify

const collect = (body: any) => {
  for (const resourceSpans of body.resourceSpans ?? []) {
    const service = (resourceSpans.resource?.attributes ?? []).find((a: any) => a.key === "service.name")?.value
      ?.stringValue
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? []) received.push({ service, span })
  }
}

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let text = ""
    request.on("data", (chunk) => (text += chunk))
    request.on("end", () => {
      if (request.url === "/v1/traces") collect(JSON.parse(text))
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  hooks = await startReceiver()
  verify = await verifierFromDocs()
})
afterAll(async () => {
  await hooks?.close()
  await new Promise<void>((done) => receiver.close(() => done()))
})

const { client } = serviceForFile({
  env: {
    get OTEL_EXPORTER_OTLP_ENDPOINT() {
      return receiverUrl
    },
    OTEL_SERVICE_NAME: "core-wallet-traced",
    OTEL_BSP_SCHEDULE_DELAY: "500",
    ...webhookEnv
  } as unknown as Record<string, string>
})
const shop = webhookShopOf(
  client,
  () => hooks,
  () => verify
)

const spansUntil = async (done: () => boolean) => {
  for (let waited = 0; waited < 30_000 && !done(); waited += 250) await new Promise((r) => setTimeout(r, 250))
}

describe("OTLP traces of one transfer", () => {
  it("the request, the wallet actor's message and the ledger batch, under OTEL_SERVICE_NAME", async () => {
    const sender = await client.party({ fund: "100" })
    const recipient = await client.party()
    const body = { recipient: recipient.id, currency: "USDT", amount: "5" }
    const one = await client.transfer(sender.sid, body)
    assert.strictEqual(one.status, 200, JSON.stringify(one.body))
    const { txId, confirmationCode } = one.body.result
    const two = await client.confirmTransfer(sender.sid, body, txId, confirmationCode)
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))

    const names = () => received.map((r) => r.span.name)
    const isRequest = (r: { span: Span }) =>
      /http\.server|POST/.test(r.span.name) &&
      JSON.stringify(r.span.attributes ?? []).includes("/core/v1/wallet/internal_transfer")
    const isWalletMessage = (r: { span: Span }) => r.span.name.startsWith("Wallet.") && !r.span.name.includes("client")
    await spansUntil(
      () =>
        received.some(isRequest) &&
        received.some(isWalletMessage) &&
        received.some((r) => r.span.name === "ledger.commit_batch")
    )
    assert.isTrue(received.some(isRequest), `a server span of internal_transfer among ${names().join(", ")}`)
    assert.isTrue(received.some(isWalletMessage), `a wallet actor span among ${names().join(", ")}`)
    assert.isTrue(
      received.some((r) => r.span.name === "ledger.commit_batch"),
      "a ledger batch span"
    )
    assert.isTrue(
      received.every((r) => r.service === "core-wallet-traced"),
      "every span names the service"
    )
    // The actor's message span belongs to the trace of the request that sent it.
    const requestTraces = new Set(received.filter(isRequest).map((r) => r.span.traceId))
    assert.isTrue(
      received.filter(isWalletMessage).some((r) => requestTraces.has(r.span.traceId)),
      "a wallet message span shares its request's trace"
    )
  })
})

const attribute = (span: Span, key: string) => span.attributes?.find((a) => a.key === key)?.value.stringValue

/** The spans of one trace as an indented tree (parents first), for the failure message and docs/TRACING.md. */
const treeOf = (spans: ReadonlyArray<Span>) => {
  const ids = new Set(spans.map((span) => span.spanId))
  const lines: Array<string> = []
  const walk = (span: Span, depth: number) => {
    lines.push(`${"  ".repeat(depth)}${span.name} ${attribute(span, "url.path") ?? ""}`.trimEnd())
    for (const child of spans.filter((s) => s.parentSpanId === span.spanId)) walk(child, depth + 1)
  }
  for (const root of spans.filter((span) => !span.parentSpanId || !ids.has(span.parentSpanId))) walk(root, 0)
  return lines.join("\n")
}

describe("one payment, one trace", () => {
  it("put_payment_order, pay_internal, the wallet's debit, the ledger batches and the webhook deliveries share the order's trace", async () => {
    const s = await shop.newShop()
    assert.strictEqual((await shop.setHook(s, hooks.url("/traced"))).status, 200)
    const order = await shop.putOrder(s)
    await shop.payInternal(order.code)
    const all = () => received.map((r) => r.span)
    const create = () =>
      all().find((span) => span.name === "payment.create" && attribute(span, "payment.order_tx_id") === order.id)
    const inTrace = () => all().filter((span) => span.traceId === create()?.traceId)
    await spansUntil(
      () => create() !== undefined && inTrace().filter((span) => span.name === "webhook.deliver").length >= 3
    )
    const root = create()
    assert.isDefined(root, `a payment.create span of order ${order.id}`)
    const trace = inTrace()
    const names = trace.map((span) => span.name)
    const tree = treeOf(trace)
    // The creating request is the trace's root; the later request's message opens payment.PayInternal under payment.create.
    assert.isTrue(
      trace.some((span) => attribute(span, "url.path") === "/payorders/v1/put_payment_order"),
      tree
    )
    const pay = trace.find((span) => span.name === "payment.PayInternal")
    assert.isDefined(pay, tree)
    assert.strictEqual(pay!.parentSpanId, root!.spanId, "payment.PayInternal is a child of payment.create")
    // ... linked to the message span of the pay_internal request, which is in that request's own trace.
    const link = pay!.links?.[0]
    assert.isDefined(link, "payment.PayInternal links its cause")
    const cause = all().find((span) => span.spanId === link!.spanId)
    assert.isDefined(cause, "the linked span was exported")
    // The payer's wallet actor debits inside the payment's trace, and the ledger batches link into it.
    assert.isTrue(
      names.some((name) => name.startsWith("Wallet.") && name.includes("CommitWithDebit")),
      tree
    )
    const traceSpans = new Set(trace.map((span) => span.spanId))
    const batches = all().filter(
      (span) => span.name === "ledger.commit_batch" && (span.links ?? []).some((l) => traceSpans.has(l.spanId))
    )
    assert.isAtLeast(batches.length, 2, "the creation's and the payment's ledger batches link to spans of the trace")
    // Each webhook delivery (Created, Started, Paid) is a span of the payment's trace and tells the receiver its traceparent.
    const delivered = hooks.on("/traced")
    assert.isAtLeast(delivered.length, 3)
    for (const got of delivered) {
      shop.assertSigned(got, s.app.webhookSecret)
      assert.match(String(got.headers.traceparent), new RegExp(`^00-${root!.traceId}-[0-9a-f]{16}-01$`))
    }
    if (process.env.PRINT_TRACE === "1") console.log(tree)
  })

  it("an incoming W3C traceparent parents the request's server span", async () => {
    const sender = await client.party({ fund: "10" })
    const recipient = await client.party()
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const parent = "00f067aa0ba902b7"
    const reply = await client.transfer(
      sender.sid,
      { recipient: recipient.id, currency: "USDT", amount: "1" },
      { headers: { traceparent: `00-${traceId}-${parent}-01` } }
    )
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const server = () => received.find((r) => r.span.traceId === traceId && r.span.parentSpanId === parent)
    await spansUntil(() => server() !== undefined)
    assert.include(JSON.stringify(server()?.span.attributes ?? []), "internal_transfer")
  })
})
