/** Deposit addresses (CONTRACT C15): the wallet's create_address / list_addresses, the scanner's address_block_list. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { watchListLimitMax } from "../../../schema/Addresses.ts"
import { Api } from "../../../schema/Api.ts"
import { ok, okCursor } from "../../../schema/Envelope.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { Addresses } from "../../services/crypto/Addresses.ts"

export const AddressHandlers = HttpApiBuilder.group(
  Api,
  "addresses",
  Effect.fn(function* (handlers) {
    const addresses = yield* Addresses
    return handlers
      .handle("create_address", ({ query }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(addresses.create(s.walletId, query.token_network, query.new ?? false), ok)
        )
      )
      .handle("list_addresses", ({ query }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(addresses.list(s.walletId, query.token_network, query.includeTechnicalState ?? false), ok)
        )
      )
  })
)

export const PrivateAddressHandlers = HttpApiBuilder.group(
  Api,
  "privateAddresses",
  Effect.fn(function* (handlers) {
    const addresses = yield* Addresses
    return handlers.handle("address_block_list", ({ query }) =>
      Effect.flatMap(
        addresses.watchList(query.tokenNetwork, query.cursor ?? "0", query.limit ?? watchListLimitMax),
        (page) => okCursor(page.items, page.cursor)
      )
    )
  })
)
