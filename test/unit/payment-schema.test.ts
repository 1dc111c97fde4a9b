/** C16's wire shapes (schema/Payments.ts) and error codes (schema/PaymentErrors.ts) decode as the contract says. */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { errorCodes } from "../../schema/Errors.ts"
import { PaymentErrors } from "../../schema/PaymentErrors.ts"
import { PutPaymentOrderIn, PutTransferOrderIn, RefundPaymentIn, TerminalQuote } from "../../schema/Payments.ts"

const decodes = (schema: Schema.Top, input: unknown) => {
  try {
    return Schema.decodeUnknownSync(schema as any)(input)
  } catch {
    return "invalid"
  }
}

describe("C16 shapes", () => {
  it("put_payment_order takes amounts as strings or numbers and checks its ranges", () => {
    const ok = decodes(PutPaymentOrderIn, { currency: "EUR", orderAmount: 12.5, externalId: "o-1", payAmount: "13" })
    expect(ok).toMatchObject({ orderAmount: "12.5", payAmount: "13" })
    expect(decodes(PutPaymentOrderIn, { currency: "EUR", orderAmount: "1", externalId: "" })).toBe("invalid")
    expect(
      decodes(PutPaymentOrderIn, { currency: "EUR", orderAmount: "1", externalId: "x", expiresInSeconds: 2_592_001 })
    ).toBe("invalid")
    expect(decodes(PutTransferOrderIn, { currency: "EUR", orderAmount: "0", externalId: "x" })).toBe("invalid")
  })

  it("refund_payment: amount optional, externalId required", () => {
    expect(decodes(RefundPaymentIn, { code: "Pabc", externalId: "r-1" })).toMatchObject({ code: "Pabc" })
    expect(decodes(RefundPaymentIn, { code: "Pabc" })).toBe("invalid")
    expect(decodes(TerminalQuote, { payAmount: "1", fee: "0", totalToPay: "1", rate: "1" })).toMatchObject({
      rate: "1"
    })
  })

  it("C16's errors 10300–10341 are in the one code table under C16's names", () => {
    const table = PaymentErrors.map((e) => {
      const tag = new e({ message: "" })._tag
      return [tag, ...errorCodes[tag as keyof typeof errorCodes]]
    })
    expect(table.map(([, code]) => code)).toEqual([
      10300, 10301, 10302, 10303, 10304, 10305, 10306, 10307, 10308, 10309, 10310, 10311, 10313, 10314, 10320, 10321,
      10322, 10323, 10324, 10330, 10340, 10341
    ])
    const status = Object.fromEntries(table.map(([tag, , http]) => [tag, http]))
    for (const tag of [
      "PaymentOrderNotFound",
      "AppNotFound",
      "AcquiringSessionNotFound",
      "RefundNotFound",
      "WebhookDeliveryNotFound"
    ])
      expect(status[tag as string]).toBe(404)
    expect(status.WebhookSignatureInvalid).toBe(401)
    // One code per error, except C19 §5's 10411: 403 for a disabled app's pkey, 400 at the gate for its orders.
    const codes = Object.entries(errorCodes)
      .filter(([tag]) => tag !== "AppDisabledOrder")
      .map(([, [code]]) => code)
    expect(new Set(codes).size).toBe(codes.length)
    expect(errorCodes.AppDisabledOrder).toEqual([errorCodes.AppDisabled[0], 400])
  })
})
