/**
 * What the chain actor plans a pushed block on (Behaviour.ts PushBlock), read fresh on every attempt of
 * its commitDecision: the kept headers and where the block goes (a block that does not place is refused
 * here), the items already recorded, the transactions a plan may touch, the deposit owners, the orders'
 * Incomes and the Deposit tariffs; out items without a txId get the one they bind (OutItemTxIds.ts).
 */
import { Effect } from "effect"
import { depositAddresses, depositOwnerAmong } from "../../sql/AddressRepo.ts"
import {
  type CryptoTx,
  cryptoTxsById,
  finalCandidates,
  itemsByKeys,
  itemsFrom,
  outsByTxHash
} from "../../sql/ChainRepo.ts"
import { BlockHeightGap, BlockNotConnected, BlockTooOld } from "../../schema/CryptoErrors.ts"
import { addressKey } from "../../src/platform/crypto/Addresses.ts"
import type { Db } from "../../src/platform/db/Sql.ts"
import { type ChainView, finalHeight, place } from "./Engine.ts"
import { readOrderIncomeFacts } from "./OrderIncomeReads.ts"
import { resolveOutTxIds } from "./OutItemTxIds.ts"
import type { PushBlock } from "./Protocol.ts"
import { itemKey, type PushContext, type TerminalFacts, TxKind } from "./Push.ts"
import { makeWorkingSet } from "./WorkingSet.ts"

export type PushPayload = typeof PushBlock.payloadSchema.Type

export interface PushReadDeps {
  readonly terminalId: bigint
  readonly db: Db
  readonly terminalFacts: Effect.Effect<TerminalFacts & { readonly decimals: number }>
  readonly currentView: Effect.Effect<ChainView>
  readonly depositFees: (
    terminal: TerminalFacts & { readonly decimals: number },
    holders: ReadonlyArray<bigint>
  ) => Effect.Effect<PushContext["depositFee"]>
}

export const readPush = (
  { terminalId, db, terminalFacts, currentView, depositFees }: PushReadDeps,
  payload: PushPayload
) =>
  Effect.gen(function* () {
    const terminal = yield* terminalFacts
    const before = yield* currentView
    const placement = place(before, payload.height, payload.hash, payload.parentHash)
    if (placement._tag === "Refuse") {
      switch (placement.rule) {
        case "HeightGap":
          return yield* new BlockHeightGap({ message: `height: above the tip + 1 (tip ${before.tip})` })
        case "NotConnected":
          return yield* new BlockNotConnected({
            message: `parentHash: not the stored hash at height ${payload.height - 1n}; push the fork point's block first`
          })
        case "TooOld":
          return yield* new BlockTooOld({
            message: `height: below the kept window (first kept ${before.first}) or at the chain's first block`
          })
      }
    }
    const tipAfter = placement._tag === "Replay" ? before.tip! : payload.height
    // C19 §10: an out item without a txId names the withdrawal or refund reported with its txHash, if it matches.
    const unnamedOuts = payload.items.filter((i) => i.direction === "out" && i.txId === null)
    const unbound = yield* db(outsByTxHash(terminalId, [...new Set(unnamedOuts.map((i) => i.txHash))]))
    const items = resolveOutTxIds(payload.items, unbound, {
      terminalId,
      reorgFrom: placement._tag === "Reorg" ? placement.from : null,
      addressKey: (a) => addressKey(terminal.typeNetwork, a)
    })
    const recordedRows = yield* db(
      itemsByKeys(
        terminalId,
        items.map((i) => ({ txHash: i.txHash, index: i.index, direction: i.direction === "in" ? 0 : 1 }))
      )
    )
    const recorded = new Map(recordedRows.map((r) => [itemKey(r.txHash, r.idx, r.direction), r]))
    const orphanedItems = placement._tag === "Reorg" ? yield* db(itemsFrom(terminalId, placement.from)) : []
    const candidates = yield* db(finalCandidates(terminalId, finalHeight(tipAfter, terminal.confirmations)))
    const named = [
      ...recordedRows.map((r) => r.txId),
      ...orphanedItems.map((r) => r.txId),
      ...items.map((i) => i.txId)
    ].filter((id): id is bigint => id !== null)
    const loaded = new Map<bigint, CryptoTx>()
    for (const tx of [...candidates, ...(yield* db(cryptoTxsById([...new Set(named)])))]) loaded.set(tx.txId, tx)
    const incomesOfRefunds = [...loaded.values()]
      .filter((tx) => tx.typeTx === TxKind.Refund && tx.incomeTxId !== null && !loaded.has(tx.incomeTxId))
      .map((tx) => tx.incomeTxId!)
    for (const tx of yield* db(cryptoTxsById(incomesOfRefunds))) loaded.set(tx.txId, tx)
    // A deposit under refund that a reorg orphans stops its refund (Push.ts): load the refund too.
    const refundsOfIncomes = [...loaded.values()]
      .filter((tx) => tx.typeTx === TxKind.Income && tx.refundTxId !== null && !loaded.has(tx.refundTxId))
      .map((tx) => tx.refundTxId!)
    for (const tx of yield* db(cryptoTxsById(refundsOfIncomes))) loaded.set(tx.txId, tx)

    const inItems = items.filter((i) => i.direction === "in")
    const owners = yield* db(depositAddresses(terminal.typeNetwork, [...new Set(inItems.map((i) => i.toKey))]))
    const ownerOf = (item: (typeof items)[number]) =>
      depositOwnerAmong(owners, terminal.typeNetwork, terminalId, item.toKey, item.memo)?.walletId
    const orderIncomes = yield* readOrderIncomeFacts(db, terminal, inItems, loaded.values())
    // Only a new Income takes a fee now (at attribution), and an expiring underpaid order's Incomes (its
    // merchant's Deposit tariff); loaded ones carry theirs.
    const depositFee = yield* depositFees(terminal, [
      ...new Set([...owners.map((o) => o.walletId), ...[...orderIncomes.orders.values()].map((o) => o.merchantWallet)])
    ])
    const txs = makeWorkingSet(loaded.values())
    return { terminal, before, placement, items, recorded, orphanedItems, txs, ownerOf, depositFee, orderIncomes }
  })

export type ReadPush = Effect.Success<ReturnType<typeof readPush>>
