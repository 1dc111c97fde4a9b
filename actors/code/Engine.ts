/**
 * The transfer-code state machine (SPEC "Code transfer transitions", CONTRACT C13), a pure function
 * `(state, command) → (state', postings, reply) | rejection`. The actor wraps it with persistence;
 * nothing here does I/O.
 *
 * Lifecycle (txState marks): Created 1 → Created|Confirmed 3 → Finished 8; Created/3 → Canceled 16;
 * type 14: Created|Confirmed → Predicted 4 when the payer detaches (payable again, like Created).
 *   11 InternalTx        creator's amount held in lock_out; a redeemer's apply settles at once.
 *   12 InternalTxConfirm held; the recipient's apply joins (3); the sender's apply settles; after the
 *                        join only the recipient may cancel (escrow invariant).
 *   13 InvoiceTx         nothing held; a payer's apply with the exact amount settles at once.
 *   14 InvoiceTxConfirm  nothing held; the payer's first apply binds and locks the payer's amount (3);
 *                        the same payer's second apply settles; the payer's cancel detaches (4).
 */
import { CodeStateCode, CodeTxState, CodeType, stateCodeOf, stateNameOf } from "../../schema/Code.ts"
import { Bucket, type LedgerOperation, type Posting, rowsOf } from "../../sql/Ledger.ts"
import { CodeInserts } from "../../sql/rows/CodeRows.ts"

export { CodeStateCode, CodeTxState, CodeType, stateCodeOf, stateNameOf }

export interface CodeState {
  readonly typeTx: CodeType
  readonly txState: number
  readonly creator: bigint
  /** The bound counterparty: the joined recipient (12) or the payer (14); null while unbound. */
  readonly counterparty: bigint | null
  readonly currency: string
  readonly amount: bigint
  readonly fee: bigint
  readonly profitWallet: bigint
}

export type CodeCommand =
  | { readonly _tag: "Apply"; readonly by: bigint; readonly amount: bigint | null }
  | { readonly _tag: "Cancel"; readonly by: bigint }

export type Rejection =
  | "SameAccounts" // the creator redeems their own code or invoice (10008)
  | "InvalidAmount" // an invoice paid with another amount, or a code applied with another amount (10014)
  | "AmountRequired" // types 13 and 14 need `amount`
  | "NotAllowed" // wrong side for this state (SPEC error rule 6)
  | "NotActive" // finished or cancelled

export interface Outcome {
  readonly state: CodeState
  readonly postings: ReadonlyArray<Posting>
  readonly reply: "Confirmed" | "NeedCodeConfirm"
  /** The wallet whose free balance this outcome debits (its wallet actor must decide it), if any. */
  readonly debits: bigint | null
}

export type Transition =
  { readonly _tag: "Ok"; readonly outcome: Outcome } | { readonly _tag: "Reject"; readonly rule: Rejection }

const ok = (
  state: CodeState,
  postings: ReadonlyArray<Posting>,
  reply: Outcome["reply"],
  debits: bigint | null = null
): Transition => ({ _tag: "Ok", outcome: { state, postings: postings.filter((p) => p.delta !== 0n), reply, debits } })
const reject = (rule: Rejection): Transition => ({ _tag: "Reject", rule })

/** What creating a code commits: its transaction, what it holds, and the code row. */
export const creationOperation = (input: {
  readonly txId: bigint
  readonly creator: bigint
  readonly typeTx: CodeType
  readonly currency: string
  readonly amount: bigint
  readonly fee: bigint
  readonly profitWallet: bigint
  readonly tag: string | null
  readonly codeHash: Uint8Array
  readonly expiresAt: Date | null
  readonly partnerInfo: string | null
}): LedgerOperation => ({
  tx: {
    id: input.txId,
    typeTx: input.typeTx,
    txState: CodeTxState.Created,
    walletFrom: input.creator,
    walletTo: input.creator,
    currency: input.currency,
    amount: input.amount,
    fee: input.fee,
    tag: input.tag,
    appId: null,
    externalId: null,
    requestHash: null,
    profitWallet: input.profitWallet
  },
  postings: creationPostings(input.typeTx, input.creator, input.currency, input.amount),
  rows: [
    rowsOf(CodeInserts, [
      {
        txId: input.txId,
        codeHash: input.codeHash,
        kind: "transfer" as const,
        creator: input.creator,
        expiresAt: input.expiresAt,
        partnerInfo: input.partnerInfo
      }
    ])
  ]
})

/** What creating a code moves: types 11 and 12 hold the amount (free → lock_out); invoices move nothing. */
export const creationPostings = (
  typeTx: CodeType,
  creator: bigint,
  currency: string,
  amount: bigint
): ReadonlyArray<Posting> =>
  typeTx <= CodeType.InternalTxConfirm
    ? [
        { walletId: creator, currency, bucket: Bucket.free, delta: -amount },
        { walletId: creator, currency, bucket: Bucket.lockOut, delta: amount }
      ]
    : []

const settleFrom = (s: CodeState, holder: bigint, recipient: bigint): ReadonlyArray<Posting> => [
  { walletId: holder, currency: s.currency, bucket: Bucket.lockOut, delta: -s.amount },
  { walletId: recipient, currency: s.currency, bucket: Bucket.free, delta: s.amount - s.fee },
  { walletId: s.profitWallet, currency: s.currency, bucket: Bucket.free, delta: s.fee }
]
const payDirect = (s: CodeState, payer: bigint): ReadonlyArray<Posting> => [
  { walletId: payer, currency: s.currency, bucket: Bucket.free, delta: -s.amount },
  { walletId: s.creator, currency: s.currency, bucket: Bucket.free, delta: s.amount - s.fee },
  { walletId: s.profitWallet, currency: s.currency, bucket: Bucket.free, delta: s.fee }
]
const lock = (s: CodeState, wallet: bigint): ReadonlyArray<Posting> => [
  { walletId: wallet, currency: s.currency, bucket: Bucket.free, delta: -s.amount },
  { walletId: wallet, currency: s.currency, bucket: Bucket.lockOut, delta: s.amount }
]
const release = (s: CodeState, wallet: bigint): ReadonlyArray<Posting> => [
  { walletId: wallet, currency: s.currency, bucket: Bucket.lockOut, delta: -s.amount },
  { walletId: wallet, currency: s.currency, bucket: Bucket.free, delta: s.amount }
]

const isOpen = (s: CodeState) => s.txState === CodeTxState.Created || s.txState === CodeTxState.Predicted

export const applyCode = (s: CodeState, by: bigint, amount: bigint | null): Transition => {
  if (s.txState === CodeTxState.Finished || s.txState === CodeTxState.Canceled) return reject("NotActive")
  const invoice = s.typeTx >= CodeType.InvoiceTx
  if (invoice && amount === null) return reject("AmountRequired")
  if (amount !== null && amount !== s.amount) return reject("InvalidAmount")
  switch (s.typeTx) {
    case CodeType.InternalTx:
      if (by === s.creator) return reject("SameAccounts")
      return ok({ ...s, txState: CodeTxState.Finished, counterparty: by }, settleFrom(s, s.creator, by), "Confirmed")
    case CodeType.InternalTxConfirm:
      if (isOpen(s)) {
        if (by === s.creator) return reject("SameAccounts")
        return ok({ ...s, txState: CodeTxState.Joined, counterparty: by }, [], "NeedCodeConfirm")
      }
      // Joined: only the sender's confirmation settles.
      if (by !== s.creator || s.counterparty === null) return reject("NotAllowed")
      return ok({ ...s, txState: CodeTxState.Finished }, settleFrom(s, s.creator, s.counterparty), "Confirmed")
    case CodeType.InvoiceTx:
      if (by === s.creator) return reject("SameAccounts")
      return ok({ ...s, txState: CodeTxState.Finished, counterparty: by }, payDirect(s, by), "Confirmed", by)
    case CodeType.InvoiceTxConfirm:
      if (by === s.creator) return reject("SameAccounts")
      if (isOpen(s))
        return ok({ ...s, txState: CodeTxState.Joined, counterparty: by }, lock(s, by), "NeedCodeConfirm", by)
      if (by !== s.counterparty) return reject("NotAllowed")
      return ok({ ...s, txState: CodeTxState.Finished }, settleFrom(s, by, s.creator), "Confirmed")
  }
}

export const cancelCode = (s: CodeState, by: bigint): Transition => {
  if (s.txState === CodeTxState.Finished || s.txState === CodeTxState.Canceled) return reject("NotActive")
  const held = s.typeTx <= CodeType.InternalTxConfirm
  if (isOpen(s)) {
    if (by !== s.creator) return reject("NotAllowed")
    return ok({ ...s, txState: CodeTxState.Canceled }, held ? release(s, s.creator) : [], "Confirmed")
  }
  // Joined.
  if (held) {
    // Escrow invariant (12): after the join only the recipient may cancel; the sender may only confirm.
    if (by !== s.counterparty) return reject("NotAllowed")
    return ok({ ...s, txState: CodeTxState.Canceled }, release(s, s.creator), "Confirmed")
  }
  // Type 14 with a payer bound: the payer detaches (Predicted, payable again); the creator cancels.
  if (by === s.counterparty)
    return ok({ ...s, txState: CodeTxState.Predicted, counterparty: null }, release(s, by), "Confirmed")
  if (by === s.creator && s.counterparty !== null)
    return ok({ ...s, txState: CodeTxState.Canceled, counterparty: null }, release(s, s.counterparty), "Confirmed")
  return reject("NotAllowed")
}

export const transition = (s: CodeState, command: CodeCommand): Transition =>
  command._tag === "Apply" ? applyCode(s, command.by, command.amount) : cancelCode(s, command.by)
