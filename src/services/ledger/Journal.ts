/**
 * Reads of the ledger journal: one transaction, a batch, a wallet's history (the SPEC's gapless
 * polling by update tick), profit rows, the cross-wallet journal feed and the events feed. Every
 * cursor comes from the same snapshot as its rows, so resuming from it skips nothing.
 */
import { Context, Effect, Layer } from "effect"
import {
  type Event,
  eventsAfter,
  findTxs,
  history,
  type HistoryFilter,
  journalAfter,
  type JournalFilter,
  profitRows,
  type Tx,
  txById
} from "../../../sql/JournalRepo.ts"
import { TransactionNotFound } from "../../../schema/Errors.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { isActiveState, txStateName, type TxRow } from "../../../schema/Transfer.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { Currencies } from "../../platform/Currencies.ts"

export interface Page<A> {
  readonly rows: ReadonlyArray<A>
  readonly cursor: string
}

export class Journal extends Context.Service<
  Journal,
  {
    readonly toRow: (row: Tx & { readonly tokenNetwork?: bigint | null }) => TxRow
    /** A transaction the wallet takes part in; anything else is "not found" (existence does not leak). */
    readonly txOfWallet: (walletId: string, txId: string) => Effect.Effect<TxRow, TransactionNotFound>
    readonly txsOfWallet: (walletId: string, txIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<TxRow>>
    readonly tx: (txId: string) => Effect.Effect<TxRow | null>
    readonly history: (filter: HistoryFilter) => Effect.Effect<Page<TxRow>>
    readonly profit: (walletId: string, startTick: string | undefined, limit: number) => Effect.Effect<Page<TxRow>>
    readonly journal: (filter: JournalFilter) => Effect.Effect<Page<TxRow>>
    readonly events: (
      cursor: string,
      limit: number
    ) => Effect.Effect<Page<{ id: string; kind: string; walletId: string; payload: unknown; dateUTC: string }>>
  }
>()("core/Journal") {
  static readonly layer = Layer.effect(
    Journal,
    Effect.gen(function* () {
      const db = yield* makeDb
      const currencies = yield* Currencies

      const toRow = (row: Tx & { readonly tokenNetwork?: bigint | null }): TxRow => {
        const decimals = currencies.find(row.currency)?.decimals ?? 0
        const toDecimals = row.currencyTo === null ? decimals : (currencies.find(row.currencyTo)?.decimals ?? 0)
        const state = row.txState
        return {
          id: String(row.id),
          idUpdate: String(row.idUpdate),
          typeTx: row.typeTx,
          txState: state,
          state: isActiveState(state) ? "Processing" : txStateName(state),
          walletFrom: String(row.walletFrom),
          walletTo: String(row.walletTo),
          currency: row.currency,
          amount: Number(fromMinorUnits(row.amount, decimals)),
          fee: Number(fromMinorUnits(row.fee, toDecimals)),
          tag: row.tag,
          dateTxUTC: row.createdAt.toISOString(),
          ...(row.currencyTo === null
            ? {}
            : {
                currencyTo: row.currencyTo,
                amountTo: Number(fromMinorUnits(row.amountTo ?? 0n, toDecimals))
              }),
          // C15: only rows of a transaction on a crypto terminal carry it; every other row is unchanged.
          ...(row.tokenNetwork === undefined || row.tokenNetwork === null
            ? {}
            : { tokenNetwork: String(row.tokenNetwork) })
        }
      }
      const involves = (walletId: string) => (row: Tx) =>
        String(row.walletFrom) === walletId || String(row.walletTo) === walletId

      /** Next cursor for update-ordered reads: past the last row of a full page, else the snapshot's watermark. */
      const nextCursor = (rows: ReadonlyArray<Tx>, limit: number, watermark: bigint, inclusive: boolean) => {
        const top = rows.length === limit ? rows[rows.length - 1].idUpdate : watermark
        return String(inclusive ? top + 1n : top)
      }

      return Journal.of({
        toRow,
        txOfWallet: (walletId, txId) =>
          Effect.flatMap(db(txById(txId)), (row) =>
            row !== undefined && involves(walletId)(row)
              ? Effect.succeed(toRow(row))
              : Effect.fail(new TransactionNotFound({ message: `id: no transaction ${txId} for this wallet` }))
          ),
        txsOfWallet: (walletId, txIds) =>
          Effect.map(db(findTxs(txIds)), (rows) => rows.filter(involves(walletId)).map(toRow)),
        tx: (txId) => Effect.map(db(txById(txId)), (row) => (row === undefined ? null : toRow(row))),
        history: (filter) =>
          Effect.map(db(history(filter)), ({ rows, watermark }) => {
            // With orderByUpdate + oldestFirst the cursor is the next inclusive startTick (SPEC recipe step 3).
            const ascendingByUpdate = filter.orderByUpdate && filter.oldestFirst
            let cursor = BigInt(
              ascendingByUpdate ? nextCursor(rows, filter.limit, watermark, true) : String(watermark + 1n)
            )
            // Never past a fixed endTick: rows at or above it are the next scan's.
            if (filter.endTick !== undefined && filter.orderByUpdate && cursor > BigInt(filter.endTick))
              cursor = BigInt(filter.endTick)
            return { rows: rows.map(toRow), cursor: String(cursor) }
          }),
        profit: (walletId, startTick, limit) =>
          Effect.map(db(profitRows(walletId, startTick, limit)), (rows) => ({
            rows: rows.map(toRow),
            cursor: rows.length > 0 ? String(rows[rows.length - 1].idUpdate + 1n) : (startTick ?? "0")
          })),
        journal: (filter) =>
          Effect.map(db(journalAfter(filter)), ({ rows, watermark }) => ({
            rows: rows.map(toRow),
            cursor: nextCursor(
              rows,
              filter.limit,
              watermark > BigInt(filter.since) ? watermark : BigInt(filter.since),
              false
            )
          })),
        events: (cursor, limit) =>
          Effect.map(db(eventsAfter(cursor, limit)), ({ rows, watermark }) => {
            const top =
              rows.length === limit ? rows[rows.length - 1].id : watermark > BigInt(cursor) ? watermark : BigInt(cursor)
            return {
              rows: rows.map((row: Event) => ({
                id: String(row.id),
                kind: row.kind,
                walletId: String(row.walletId),
                payload: row.payload,
                dateUTC: row.createdAt.toISOString()
              })),
              cursor: String(top)
            }
          })
      })
    })
  )
}
