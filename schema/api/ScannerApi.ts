/** Scanner `/private/v1/` (service keys): blocks pushed by scanners and links of unattributed deposits (C15). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AddressTxBatch, AddressTxBatchOut, LinkItemIn, LinkItemOut, ScannerTerminalOut } from "../Chain.ts"
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
import { TerminalId } from "../Ids.ts"
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
    HttpApiEndpoint.get("scanner_terminal", "/scanner_terminal", {
      query: { tokenNetwork: TerminalId },
      success: Envelope(ScannerTerminalOut),
      error: [TerminalNotFound, NotACryptoTerminal, RateLimited]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "C19 §10 (scopes scanner, signer, admin): a crypto terminal's settings a scanner or signer needs, and its chain tip (null before the first push) to resume from."
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
