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

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes?: ReadonlyArray<{ key: string; value: Record<string, unknown> }>
}

const received: Array<{ service: string | undefined; span: Span }> = []
let receiver: Server
let receiverUrl = ""

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
})
afterAll(() => new Promise<void>((done) => receiver.close(() => done())))

const { client } = serviceForFile({
  env: {
    get OTEL_EXPORTER_OTLP_ENDPOINT() {
      return receiverUrl
    },
    OTEL_SERVICE_NAME: "core-wallet-traced",
    OTEL_BSP_SCHEDULE_DELAY: "500"
  } as unknown as Record<string, string>
})

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
