/** The payment gate's crypto actions (C16): thin calls into PaymentCrypto. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { PaymentCrypto } from "../../services/payments/PaymentCrypto.ts"

export const PaymentCryptoHandlers = HttpApiBuilder.group(
  Api,
  "paymentCrypto",
  Effect.fn(function* (handlers) {
    const crypto = yield* PaymentCrypto
    return handlers
      .handle("pay_crypto", ({ query, payload }) =>
        Effect.flatMap(crypto.payCrypto(query.code, String(payload.tokenNetworkId)), ok)
      )
      .handle("confirm_crypto", ({ query, payload }) =>
        Effect.flatMap(crypto.confirmCrypto(query.code, payload.txHash), ok)
      )
      .handle("cancel_crypto", ({ query }) => Effect.flatMap(crypto.cancelCrypto(query.code), ok))
  })
)
