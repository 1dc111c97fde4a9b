/**
 * The payment gate's `address` of an order (C16 OrderInfoOut): the order's attached deposit address
 * on its locked terminal, what arrived there in the current chain (C15 items, orphaned excluded), the
 * confirmations of the newest item, the terminal's required confirmations and the payer's claimed hash.
 * Null without a crypto payment started (no terminal, or no attached address on it).
 */
import { Effect } from "effect"
import { attachedAddressOf, receivedAt } from "../../../sql/OrderAddressRepo.ts"
import type { PaymentOrderRow } from "../../../sql/PaymentOrderRepo.ts"
import { findTerminal } from "../../../sql/ReferenceRepo.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import type { OrderInfoOut } from "../../../schema/Payments.ts"
import type { Db } from "../../platform/db/Sql.ts"

export const orderAddressOut = (db: Db, decimalsOf: (currency: string) => number, row: PaymentOrderRow) =>
  Effect.gen(function* () {
    if (row.terminalId === null || row.method !== "CryptoTransfer" || row.payCurrency === null) return null
    const at = yield* db(attachedAddressOf(row.txId, row.terminalId))
    if (at === undefined) return null
    const terminal = yield* db(findTerminal(String(row.terminalId)))
    const received = yield* db(receivedAt(row.terminalId, at.addressKey, at.memo))
    const decimals = decimalsOf(row.payCurrency)
    const confirmations =
      received.lastHeight === null || received.tipHeight === null
        ? 0
        : Math.max(0, Number(received.tipHeight - received.lastHeight) + 1)
    const address: OrderInfoOut["address"] = {
      address: at.address,
      memo: at.memo,
      tokenNetworkId: String(row.terminalId) as any,
      currency: row.payCurrency,
      amount: fromMinorUnits((row.payAmount ?? 0n) + row.fee, decimals),
      txHash: at.claimedTxHash,
      received: fromMinorUnits(received.amount, decimals),
      confirmations,
      confirmationsRequired: terminal?.confirmations ?? 0
    }
    return address
  })
