/**
 * Reads of crypto transactions for their wallets (CONTRACT C15): address_tx_info and the Incomes
 * awaiting partner info. Straight from SQL (sql/CryptoTxRepo.ts); money as exact decimal strings in
 * the currency's units.
 *
 * Confirmations: tip − blockHeight + 1 (the terminal's `chain_heads.tip_height`) while the
 * transaction's block is in the current chain; 0 when it has not been seen in a block yet, when its
 * block was orphaned, or when the terminal has no tip. Never null, so a client compares it with
 * requiredConfirmations without a special case.
 */
import { Context, Effect, Layer } from "effect"
import { cryptoTxsOfWallet, incomesAwaitingPartnerInfo } from "../../../sql/CryptoTxRepo.ts"
import { type AddressTxInfoOut, addressTxInfoMax, type AwaitingPartnerInfoRow } from "../../../schema/CryptoInfo.ts"
import { TooManyItems } from "../../../schema/Errors.ts"
import { asTxId } from "../../../schema/Ids.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { TerminalFlag } from "../../../schema/Reference.ts"
import { isActiveState, txStateName } from "../../../schema/Transfer.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { Journal } from "../ledger/Journal.ts"

/** Blocks on top of (and including) the transaction's block; 0 while it is not in the current chain. */
export const confirmationsOf = (blockHeight: bigint | null, orphaned: boolean, tipHeight: bigint | null): number => {
  if (blockHeight === null || orphaned || tipHeight === null || tipHeight < blockHeight) return 0
  return Number(tipHeight - blockHeight + 1n)
}

export class CryptoInfo extends Context.Service<
  CryptoInfo,
  {
    readonly addressTxInfo: (
      walletId: string,
      txIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<AddressTxInfoOut>, TooManyItems>
    readonly awaitingPartnerInfo: (
      walletId: string,
      limit: number
    ) => Effect.Effect<ReadonlyArray<AwaitingPartnerInfoRow>>
  }
>()("core/CryptoInfo") {
  static readonly layer = Layer.effect(
    CryptoInfo,
    Effect.gen(function* () {
      const db = yield* makeDb
      const currencies = yield* Currencies
      const journal = yield* Journal
      const decimalsOf = (currency: string) => currencies.find(currency)?.decimals ?? 0

      const addressTxInfo = (walletId: string, txIds: ReadonlyArray<string>) =>
        txIds.length > addressTxInfoMax
          ? Effect.fail(new TooManyItems({ message: `body: at most ${addressTxInfoMax} transaction ids` }))
          : Effect.map(db(cryptoTxsOfWallet(walletId, txIds.map(String))), (rows) => {
              const byId = new Map(rows.map((row) => [String(row.txId), row]))
              const out: Array<AddressTxInfoOut> = []
              const seen = new Set<string>()
              for (const requested of txIds) {
                const id = String(BigInt(requested))
                const row = byId.get(id)
                // In request order; an id asked twice is answered once.
                if (row === undefined || seen.has(id)) continue
                seen.add(id)
                const decimals = decimalsOf(row.currency)
                out.push({
                  txId: asTxId(row.txId),
                  typeTx: row.typeTx,
                  txState: row.txState,
                  state: isActiveState(row.txState) ? "Processing" : txStateName(row.txState),
                  stage: row.stage,
                  tokenNetwork: String(row.terminalId),
                  typeNetwork: row.typeNetwork,
                  currency: row.currency,
                  amount: fromMinorUnits(row.amount, decimals),
                  fee: fromMinorUnits(row.fee, decimals),
                  networkFee: fromMinorUnits(row.networkFee, decimals),
                  txHash: row.txHash,
                  index: row.idx === null ? null : Number(row.idx),
                  fromAddress: row.fromAddress,
                  toAddress: row.toAddress,
                  memo: row.memo,
                  blockHeight: row.blockHeight === null ? null : Number(row.blockHeight),
                  blockHash: row.blockHash,
                  // C15: on-chain fields null until seen (a queued withdrawal or refund has no block yet).
                  confirmations:
                    row.blockHeight === null ? null : confirmationsOf(row.blockHeight, row.orphaned, row.tipHeight),
                  requiredConfirmations: row.requiredConfirmations,
                  requirePartnerInfo: (row.terminalFlags & TerminalFlag.RequirePartnerInfo) !== 0,
                  partnerInfo: row.partnerInfo,
                  description: row.description,
                  orphaned: row.orphaned,
                  sourceAddress: row.sourceAddress,
                  refundTxId: row.refundTxId === null ? null : asTxId(row.refundTxId),
                  incomeTxId: row.incomeTxId === null ? null : asTxId(row.incomeTxId)
                })
              }
              return out
            })

      const awaitingPartnerInfo = (walletId: string, limit: number) =>
        Effect.map(db(incomesAwaitingPartnerInfo(walletId, limit)), (rows) =>
          rows.map((row): AwaitingPartnerInfoRow => ({
            ...journal.toRow(row),
            tokenNetwork: String(row.tokenNetwork),
            txHash: row.txHash,
            confirmations: confirmationsOf(row.blockHeight, row.orphaned, row.tipHeight),
            requiredConfirmations: row.requiredConfirmations
          }))
        )

      return CryptoInfo.of({ addressTxInfo, awaitingPartnerInfo })
    })
  )
}
