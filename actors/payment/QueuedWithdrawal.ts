/**
 * The C15 withdrawal a crypto payout or a crypto refund rides on, queued for the signer in the commit
 * that starts it: an Outcome (typeTx 2, a payout) or a C15 Refund (typeTx 19, a crypto refund), txState
 * 3, of the merchant wallet to Treasury, its crypto record Queued to the destination address (networkFee
 * 0 for a payout, whose fee covers the chain; a refund's the terminal's), and the caller's link row. No
 * postings: the money is already reserved in the merchant's lock_out.
 */
import { type KindRows, type LedgerOperation, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { CryptoTxInserts, Stage } from "../../sql/rows/CryptoRows.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import type { PayoutWithdrawalSchema } from "./Protocol.ts"

/**
 * What the withdrawal moves: from which wallet, in which currency, how much, with which fee. `kind`: an
 * Outcome (a payout, typeTx 2) or a C15 Refund (a crypto refund, typeTx 19: the signer's kind "Refund");
 * `networkFee`: the terminal's, charged once per refund (0 for a payout: its fee covers the chain).
 */
export interface WithdrawalMoney {
  readonly merchantWallet: bigint
  readonly currency: string
  readonly amount: bigint
  readonly fee: bigint
  readonly profitWallet: bigint | null
  readonly kind?: typeof TxType.Outcome | typeof TxType.Refund
  readonly networkFee?: bigint
}

export const queuedWithdrawalOperation = (
  w: typeof PayoutWithdrawalSchema.Type,
  money: WithdrawalMoney,
  link: KindRows
): LedgerOperation => ({
  tx: {
    id: w.txId,
    typeTx: money.kind ?? TxType.Outcome,
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
        typeTx: money.kind ?? TxType.Outcome,
        stage: Stage.Queued,
        networkFee: money.networkFee ?? 0n,
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
