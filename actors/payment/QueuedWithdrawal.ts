/**
 * The C15 withdrawal a crypto payout or a crypto refund rides on, queued for the signer in the commit
 * that starts it: an Outcome (typeTx 2, txState 3) of the merchant wallet to Treasury, its crypto record
 * Queued (networkFee 0: the payout's or refund's fee covers the chain) to the destination address, and
 * the caller's link row. No postings: the money is already reserved in the merchant's lock_out.
 */
import { type KindRows, type LedgerOperation, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { CryptoTxInserts, Stage } from "../../sql/rows/CryptoRows.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import type { PayoutWithdrawalSchema } from "./Protocol.ts"

/** What the withdrawal moves: from which wallet, in which currency, how much, with which fee. */
export interface WithdrawalMoney {
  readonly merchantWallet: bigint
  readonly currency: string
  readonly amount: bigint
  readonly fee: bigint
  readonly profitWallet: bigint | null
}

export const queuedWithdrawalOperation = (
  w: typeof PayoutWithdrawalSchema.Type,
  money: WithdrawalMoney,
  link: KindRows
): LedgerOperation => ({
  tx: {
    id: w.txId,
    typeTx: TxType.Outcome,
    txState: TxState.Created | TxState.Confirmed,
    walletFrom: money.merchantWallet,
    walletTo: SystemWallet.Treasury,
    currency: money.currency,
    amount: money.amount,
    fee: money.fee,
    tag: null,
    appId: null,
    externalId: null,
    requestHash: null,
    profitWallet: money.profitWallet
  },
  postings: [],
  rows: [
    rowsOf(CryptoTxInserts, [
      {
        txId: w.txId,
        terminalId: w.terminalId,
        typeTx: TxType.Outcome,
        stage: Stage.Queued,
        networkFee: 0n,
        txHash: null,
        index: null,
        fromAddress: null,
        toAddress: w.address,
        memo: w.memo,
        blockHeight: null,
        blockHash: null,
        sourceAddress: null,
        sourceIndex: null,
        incomeTxId: null,
        queued: true
      }
    ]),
    link
  ]
})
