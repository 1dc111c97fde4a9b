/**
 * Several operations of one batch may change the same transaction in turn (a pipelining room rests
 * an order, then fills it with its next decision). A multi-row UPDATE applies only one source row
 * per target row, so consecutive changes of one row are folded into one: the first change's
 * precondition with the last change's result. A change that does not continue the previous one
 * (its precondition is not what the previous one left) is kept apart, and the batch then fails its
 * row count and is retried one operation at a time, as any conflict is.
 */
import type { TxTransition } from "./Ledger.ts"

export const foldTransitions = <T extends { readonly t: TxTransition; readonly tick: bigint }>(
  rows: ReadonlyArray<T>
): Array<T> => {
  const out: Array<T> = []
  const last = new Map<bigint, number>()
  for (const row of rows) {
    const at = last.get(row.t.id)
    if (at !== undefined && out[at].t.to === row.t.from) {
      const prev = out[at].t
      out[at] = {
        ...row,
        t: {
          ...row.t,
          from: prev.from,
          walletFrom: row.t.walletFrom ?? prev.walletFrom,
          walletTo: row.t.walletTo ?? prev.walletTo,
          amount: row.t.amount ?? prev.amount,
          amountTo: row.t.amountTo ?? prev.amountTo,
          fee: row.t.fee ?? prev.fee
        }
      }
      continue
    }
    last.set(row.t.id, out.length)
    out.push(row)
  }
  return out
}
