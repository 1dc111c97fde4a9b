/** Payment gate `/payment/v1/`, paying by crypto (C16 pay_crypto, confirm_crypto, cancel_crypto): by order code. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AddressesUnavailable } from "../CryptoErrors.ts"
import { Envelope } from "../Envelope.ts"
import { TerminalId } from "../Ids.ts"
import { OrderInfoOut } from "../Payments.ts"
import { TooManyOrderAddresses } from "../RailErrors.ts"
import { OrderActionErrors } from "./PayordersApi.ts"

const gateQuery = { code: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)) }
const errors = [...OrderActionErrors, AddressesUnavailable, TooManyOrderAddresses] as const

export class PaymentCryptoApi extends HttpApiGroup.make("paymentCrypto")
  .add(
    HttpApiEndpoint.post("pay_crypto", "/pay_crypto", {
      query: gateQuery,
      payload: Schema.Struct({ tokenNetworkId: TerminalId }),
      success: Envelope(OrderInfoOut),
      error: [...errors]
    })
  )
  .add(
    HttpApiEndpoint.post("confirm_crypto", "/confirm_crypto", {
      query: gateQuery,
      payload: Schema.Struct({ txHash: Schema.String.check(Schema.isMaxLength(1000)) }),
      success: Envelope(OrderInfoOut),
      error: [...errors]
    })
  )
  .add(
    HttpApiEndpoint.post("cancel_crypto", "/cancel_crypto", {
      query: gateQuery,
      payload: Schema.Struct({}),
      success: Envelope(OrderInfoOut),
      error: [...errors]
    })
  )
  .prefix("/payment/v1")
  .annotateMerge(
    OpenApi.annotations({
      title: "Payment gate (crypto)",
      description: "Pay an order to its own deposit address; the scanner's pushes move the money"
    })
  ) {}
