/**
 * What the chain actor reads before planning a push for the payment orders it may pay
 * (OrderIncomes.ts): the attached order addresses among the block's `to` keys, the orders that took
 * the loaded Incomes, and those orders' rows. Read inside the push's attempt, so a plan that lost to
 * the order's actor (LC409 on the order row) is planned again on fresh rows.
 */
import { Effect } from "effect"
import { finalIncomesOfOrders, orderAddressesAmong, ordersOfIncomes } from "../../sql/OrderAddressRepo.ts"
import { paymentOrderByTx, type PaymentOrderRow } from "../../sql/PaymentOrderRepo.ts"
import type { CryptoTx } from "../../sql/ChainRepo.ts"
import { isMemoNetwork } from "../../src/platform/crypto/Addresses.ts"
import type { Db } from "../../src/platform/db/Sql.ts"
import type { OrderIncomeFacts } from "./OrderIncomes.ts"

export const readOrderIncomeFacts = (
  db: Db,
  terminal: { readonly id: bigint; readonly typeNetwork: number },
  inItems: ReadonlyArray<{ readonly toKey: string; readonly memo: string | null }>,
  loaded: Iterable<CryptoTx>
) =>
  Effect.gen(function* () {
    const memoNetwork = isMemoNetwork(terminal.typeNetwork)
    const keys = [...new Set(inItems.map((i) => i.toKey))]
    const memos = [...new Set(inItems.flatMap((i) => (i.memo === null || i.memo === "" ? [] : [i.memo])))]
    const addresses = yield* db(orderAddressesAmong({ ...terminal, memoNetwork }, keys, memos))
    const incomes = [...loaded].filter((tx) => tx.typeTx === 1).map((tx) => tx.txId)
    const links = yield* db(ordersOfIncomes(incomes))
    const orders = new Map<bigint, PaymentOrderRow>()
    for (const id of new Set([...addresses.map((a) => a.orderTxId), ...links.map((l) => l.orderTxId)])) {
      const row = yield* db(paymentOrderByTx(id))
      if (row !== undefined) orders.set(id, row)
    }
    const facts: OrderIncomeFacts = {
      orders,
      linked: new Map(links.map((l) => [l.incomeTxId, l.orderTxId])),
      addresses,
      memoNetwork,
      now: Date.now(),
      // Only a Processing order can hold final Incomes short of totalToPay (and so expire with them).
      finalIncomes: yield* db(
        finalIncomesOfOrders([...orders.values()].filter((o) => o.stateCode === 3).map((o) => o.txId))
      )
    }
    return facts
  })
