import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { awaitingPartnerInfoLimitMax } from "../../../schema/CryptoInfo.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { CryptoInfo } from "../../services/crypto/CryptoInfo.ts"

export const CryptoInfoHandlers = HttpApiBuilder.group(
  Api,
  "cryptoInfo",
  Effect.fn(function* (handlers) {
    const crypto = yield* CryptoInfo
    return handlers.handle("address_tx_info", ({ payload }) =>
      CurrentSession.use((s) => Effect.flatMap(crypto.addressTxInfo(s.walletId, payload), ok))
    )
  })
)

export const CryptoWalletReadsHandlers = HttpApiBuilder.group(
  Api,
  "cryptoWalletReads",
  Effect.fn(function* (handlers) {
    const crypto = yield* CryptoInfo
    return handlers.handle("list_txs_awaiting_partner_info", ({ query }) =>
      CurrentSession.use((s) =>
        Effect.flatMap(crypto.awaitingPartnerInfo(s.walletId, query.limit ?? awaitingPartnerInfoLimitMax), ok)
      )
    )
  })
)
