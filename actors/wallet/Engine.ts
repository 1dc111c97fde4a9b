/**
 * The wallet's pure balance rules: given the known buckets of one currency and a request, either
 * the postings to commit or a rejection. No I/O; the actor feeds it and commits what it returns.
 */
import { Bucket, type Posting, SystemWallet } from "../../sql/Ledger.ts"

export interface Buckets {
  free: bigint
  lockOut: bigint
  lockIn: bigint
  lockOrders: bigint
}

export const emptyBuckets = (): Buckets => ({ free: 0n, lockOut: 0n, lockIn: 0n, lockOrders: 0n })

export type Decision =
  | { readonly _tag: "Post"; readonly postings: ReadonlyArray<Posting> }
  | { readonly _tag: "Reject"; readonly rule: "BalanceNotEnough" }

/** Treasury credit or debit of the free bucket; a debit needs the free balance to cover it. */
export const treasuryPosting = (
  walletId: bigint,
  known: Buckets,
  currency: string,
  amount: bigint,
  direction: "credit" | "debit"
): Decision => {
  if (amount <= 0n) throw new Error("invariant: treasury amount must be positive")
  if (direction === "debit" && known.free < amount) return { _tag: "Reject", rule: "BalanceNotEnough" }
  const sign = direction === "credit" ? 1n : -1n
  return {
    _tag: "Post",
    postings: [
      { walletId, currency, bucket: Bucket.free, delta: sign * amount },
      { walletId: SystemWallet.Treasury, currency, bucket: Bucket.free, delta: -sign * amount }
    ]
  }
}

/** Applies committed postings of this wallet to the known buckets. */
export const applyPostings = (
  walletId: bigint,
  known: Map<string, Buckets>,
  postings: ReadonlyArray<Posting>
): void => {
  for (const posting of postings) {
    if (posting.walletId !== walletId) continue
    const buckets = known.get(posting.currency)
    if (buckets === undefined) continue
    switch (posting.bucket) {
      case Bucket.free:
        buckets.free += posting.delta
        break
      case Bucket.lockOut:
        buckets.lockOut += posting.delta
        break
      case Bucket.lockIn:
        buckets.lockIn += posting.delta
        break
      case Bucket.lockOrders:
        buckets.lockOrders += posting.delta
        break
    }
  }
}

const nonZero = (postings: ReadonlyArray<Posting>): ReadonlyArray<Posting> => postings.filter((p) => p.delta !== 0n)

/** Step one of a two-step transfer: amount + fee move free → lock_out; refused when free is short. */
export const reserveTransfer = (
  walletId: bigint,
  known: Buckets,
  currency: string,
  amount: bigint,
  fee: bigint
): Decision => {
  if (amount <= 0n || fee < 0n) throw new Error("invariant: transfer amount must be positive and fee not negative")
  const total = amount + fee
  if (known.free < total) return { _tag: "Reject", rule: "BalanceNotEnough" }
  return {
    _tag: "Post",
    postings: [
      { walletId, currency, bucket: Bucket.free, delta: -total },
      { walletId, currency, bucket: Bucket.lockOut, delta: total }
    ]
  }
}

/** Step two: the reservation leaves lock_out; the recipient gets the amount, the profit wallet the fee. */
export const settleTransfer = (
  walletId: bigint,
  recipientId: bigint,
  profitWalletId: bigint,
  currency: string,
  amount: bigint,
  fee: bigint
): ReadonlyArray<Posting> =>
  nonZero([
    { walletId, currency, bucket: Bucket.lockOut, delta: -(amount + fee) },
    { walletId: recipientId, currency, bucket: Bucket.free, delta: amount },
    { walletId: profitWalletId, currency, bucket: Bucket.free, delta: fee }
  ])

/** Cancel or expiry: the reservation returns to free. */
export const releaseTransfer = (
  walletId: bigint,
  currency: string,
  amount: bigint,
  fee: bigint
): ReadonlyArray<Posting> => [
  { walletId, currency, bucket: Bucket.lockOut, delta: -(amount + fee) },
  { walletId, currency, bucket: Bucket.free, delta: amount + fee }
]

/** An operator debt charge takes at most the free balance (never drives it negative). */
export const debtCharge = (
  walletId: bigint,
  known: Buckets,
  currency: string,
  amount: bigint,
  profitWalletId: bigint
) => {
  const charged = known.free < amount ? (known.free > 0n ? known.free : 0n) : amount
  return {
    charged,
    outstanding: amount - charged,
    postings:
      charged === 0n
        ? []
        : ([
            { walletId, currency, bucket: Bucket.free, delta: -charged },
            { walletId: profitWalletId, currency, bucket: Bucket.free, delta: charged }
          ] as ReadonlyArray<Posting>)
  }
}

/**
 * Step two of a swap against the Broker: the reserved fromAmount leaves lock_out for the Broker, the
 * Broker pays the net amount and the fee (both in the target currency, CONTRACT C14).
 */
export const settleSwap = (
  walletId: bigint,
  profitWalletId: bigint,
  from: string,
  amount: bigint,
  to: string,
  net: bigint,
  fee: bigint
): ReadonlyArray<Posting> =>
  nonZero([
    { walletId, currency: from, bucket: Bucket.lockOut, delta: -amount },
    { walletId: SystemWallet.Broker, currency: from, bucket: Bucket.free, delta: amount },
    { walletId: SystemWallet.Broker, currency: to, bucket: Bucket.free, delta: -(net + fee) },
    { walletId, currency: to, bucket: Bucket.free, delta: net },
    { walletId: profitWalletId, currency: to, bucket: Bucket.free, delta: fee }
  ])
