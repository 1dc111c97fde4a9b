/**
 * Deposit addresses (CONTRACT C15 "Addresses"): the wallet's create_address and list_addresses
 * (session, `/core/v1/wallet/`) and the scanner's address_block_list (service, `/private/v1/`).
 * Two groups: the credential middleware is per group.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AddressOut, CreateAddressQuery, ListAddressesQuery, WatchedAddress, WatchListQuery } from "../Addresses.ts"
import { AddressesUnavailable, AddressLimitReached, NotACryptoTerminal, TerminalNotAllowed } from "../CryptoErrors.ts"
import { CursorEnvelope, Envelope } from "../Envelope.ts"
import { InvalidRequest, TerminalNotFound, WalletNotFound } from "../Errors.ts"
import { ServiceAuth, SessionAuth } from "../Security.ts"

export class AddressApi extends HttpApiGroup.make("addresses")
  .add(
    HttpApiEndpoint.get("create_address", "/create_address", {
      query: CreateAddressQuery,
      success: Envelope(AddressOut),
      error: [
        InvalidRequest,
        TerminalNotFound,
        WalletNotFound,
        NotACryptoTerminal,
        TerminalNotAllowed,
        AddressesUnavailable,
        AddressLimitReached
      ]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "A deposit address for the terminal (C15). Derived networks (Bitcoin, Ethereum, Tron, BnbSmartChain): the wallet's newest address on the network, the first allocated on first call; new=true allocates another (at most max_addr_count, else 10203). Memo networks (Solana, Ton): the terminal's hot address with the wallet's memo, always the same."
      })
    ),
    HttpApiEndpoint.get("list_addresses", "/list_addresses", {
      query: ListAddressesQuery,
      success: Envelope(Schema.Array(AddressOut)),
      error: [InvalidRequest, TerminalNotFound]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Without token_network: all the wallet's address records, oldest first. With it: the records usable on that terminal, each with its technicalState when includeTechnicalState=true (null for memo records and non-crypto terminals)."
      })
    )
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/wallet")
  .annotateMerge(OpenApi.annotations({ title: "Wallet addresses", description: "Session: the active wallet" })) {}

export class PrivateAddressApi extends HttpApiGroup.make("privateAddresses")
  .add(
    HttpApiEndpoint.get("address_block_list", "/address_block_list", {
      query: WatchListQuery,
      success: CursorEnvelope(Schema.Array(WatchedAddress)),
      error: [InvalidRequest, TerminalNotFound, NotACryptoTerminal]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "The scanner's watch list of a terminal: the derived addresses of its network (payment-order ones included) or its memo records, in allocation order, after `cursor` (exclusive, default 0); limit 1..1000 (default 1000). The next watermark is in `cursor`."
      })
    )
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1")
  .annotateMerge(OpenApi.annotations({ title: "Scanner addresses", description: "Service credentials" })) {}
