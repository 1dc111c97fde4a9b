/**
 * The shapes foreign payloads are decoded with (schema/Acquiring.ts AcquirerWebhookIn,
 * schema/FederationWire.ts) through src/platform/ForeignJson.ts: what the acquirer, the sandbox and a
 * partner really send decodes; each malformed part fails with one line naming its field (bare for a
 * body's field, under its root for a nested value), never echoing the input.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { AcquirerWebhookIn } from "../../schema/Acquiring.ts"
import {
  ChatMessageData,
  FederationWebhookIn,
  PartnerErrorEnvelope,
  PartnerOrder,
  PartnerOrderEventData
} from "../../schema/FederationWire.ts"
import { decodeJson, decodeValue } from "../../src/platform/ForeignJson.ts"

const failure = (result: Result.Result<unknown, string>): string => {
  assert.isTrue(Result.isFailure(result), "must not decode")
  return Result.isFailure(result) ? result.failure : ""
}

const acquirer = {
  eventId: "evt_1",
  acquiringId: "acq_1",
  status: "Approved" as const,
  amount: "10.6",
  currency: "USDT",
  occurredAt: "2026-11-27T20:00:00.000Z"
}

const order = {
  id: "1234567890123",
  externalId: "fed-42",
  state: "Paid",
  currency: "USDT",
  orderAmount: "3",
  code: "ABC",
  payUrl: null,
  expiresAt: "2026-11-27T21:00:00.000Z",
  paidAmount: "3",
  meta: { any: "extra field, ignored" }
}

describe("foreign payloads", () => {
  it("the acquirer webhook: a good body decodes; each malformed field is named", () => {
    const decode = decodeJson(AcquirerWebhookIn)
    assert.deepStrictEqual(decode(JSON.stringify(acquirer)), Result.succeed(acquirer))
    assert.strictEqual(failure(decode("{nope")), "body: not JSON")
    assert.match(failure(decode("[]")), /^body: /)
    assert.match(failure(decode("null")), /^body: /)
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ status: "Paid" }, "status"],
      [{ amount: 10.6 }, "amount"],
      [{ amount: "-1" }, "amount"],
      [{ amount: "1e3" }, "amount"],
      [{ eventId: "" }, "eventId"],
      [{ eventId: "x".repeat(201) }, "eventId"],
      [{ occurredAt: "2026-02-30" }, "occurredAt"],
      [{ currency: undefined }, "currency"]
    ]
    for (const [over, field] of cases) {
      const message = failure(decode(JSON.stringify({ ...acquirer, ...over })))
      assert.isTrue(message.startsWith(`${field}: `), `${JSON.stringify(over)} → ${message}`)
      assert.notInclude(message, "x".repeat(50), "the input is not echoed")
    }
  })

  it("the federation webhook: the event, an order event's data and a chat message's data", () => {
    const event = { eventId: "e1", type: "PaymentOrder.Paid", createdAt: order.expiresAt, appId: "7", data: order }
    const decodeEvent = decodeJson(FederationWebhookIn)
    assert.isTrue(Result.isSuccess(decodeEvent(JSON.stringify(event))))
    assert.isTrue(Result.isSuccess(decodeEvent(JSON.stringify({ ...event, appId: 7 }))))
    assert.match(failure(decodeEvent(JSON.stringify({ ...event, appId: 7.5 }))), /^appId: /)
    assert.match(failure(decodeEvent(JSON.stringify({ ...event, data: [] }))), /^data: /)
    assert.match(failure(decodeEvent(JSON.stringify({ ...event, createdAt: 1 }))), /^createdAt: /)
    const decodeData = decodeValue(PartnerOrderEventData, "data")
    assert.deepStrictEqual(decodeData(order), Result.succeed({ id: order.id, externalId: "fed-42" }))
    assert.deepStrictEqual(decodeData({}), Result.succeed({}))
    assert.match(failure(decodeData({ externalId: 42 })), /^data\.externalId: /)
    assert.match(failure(decodeData({ id: 42 })), /^data\.id: /)
    const decodeChat = decodeValue(ChatMessageData, "data")
    assert.deepStrictEqual(decodeChat({ from: "B", text: "hi" }), Result.succeed({ from: "B", text: "hi" }))
    assert.match(failure(decodeChat({ from: "B", text: "" })), /^data\.text: a string of 1 to 4000 characters$/)
    assert.match(failure(decodeChat({ text: "hi" })), /^data\.from: /)
  })

  it("partner answers: an order decodes to what federation reads; an error envelope carries its code", () => {
    const decodeOrder = decodeValue(PartnerOrder, "result")
    const decoded = decodeOrder(order)
    assert.isTrue(Result.isSuccess(decoded))
    if (Result.isSuccess(decoded)) assert.notProperty(decoded.success, "meta", "fields not read are dropped")
    for (const [over, field] of [
      [{ state: 42 }, "result.state"],
      [{ id: "abc" }, "result.id"],
      [{ orderAmount: 3 }, "result.orderAmount"],
      [{ externalId: undefined }, "result.externalId"],
      [{ expiresAt: "soon" }, "result.expiresAt"]
    ] as const)
      assert.match(failure(decodeOrder({ ...order, ...over })), new RegExp(`^${field.replace(".", "\\.")}: `))
    const decodeError = decodeJson(PartnerErrorEnvelope)
    assert.deepStrictEqual(
      decodeError('{"result":null,"error":{"code":10002,"message":"short"}}'),
      Result.succeed({ error: { code: 10002, message: "short" } })
    )
    assert.match(failure(decodeError('{"error":{"code":"10002"}}')), /^error\.code: /)
  })
})
