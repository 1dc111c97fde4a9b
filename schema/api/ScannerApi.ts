/** Scanner `/private/v1/` (service keys): blocks pushed by scanners and links of unattributed deposits (C15). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AddressTxBatch, AddressTxBatchOut, LinkItemIn, LinkItemOut } from "../Chain.ts"
import {
  BlockHeightGap,
  BlockNotConnected,
  BlockTooOld,
  DuplicateItem,
  InvalidAddress,
  NotACryptoTerminal
} from "../CryptoErrors.ts"
import { Envelope } from "../Envelope.ts"
import { InvalidRequest, RateLimited, TerminalNotFound, TooManyDecimals, TooManyItems } from "../Errors.ts"
import { ServiceAuth } from "../Security.ts"

export class ScannerApi extends HttpApiGroup.make("scanner")
  .add(
    HttpApiEndpoint.post("tx_list_push", "/tx_list_push", {
      payload: AddressTxBatch,
      success: Envelope(AddressTxBatchOut),
      error: [
        TerminalNotFound,
        NotACryptoTerminal,
        InvalidRequest,
        TooManyDecimals,
        InvalidAddress,
        DuplicateItem,
        TooManyItems,
        BlockHeightGap,
        BlockNotConnected,
        BlockTooOld,
        RateLimited
      ]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "One block of one terminal, validated whole before anything moves: appended, replayed, or a reorg (orphan then append). Everything it decides is one ledger commit."
      })
    ),
    HttpApiEndpoint.post("link_address_transactions", "/link_address_transactions", {
      payload: Schema.Array(LinkItemIn),
      success: Envelope(Schema.Array(LinkItemOut)),
      error: [InvalidRequest, TooManyItems]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Moves unattributed Incomes (held by wallet -4) to wallets; one result per item (10083, 10030, 10220; replayed for a repeated link)."
      })
    )
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1")
  .annotateMerge(OpenApi.annotations({ title: "Scanner", description: "Blockchain scanners (service keys)" })) {}
