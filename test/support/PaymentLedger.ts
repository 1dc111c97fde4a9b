/**
 * Balances per (wallet, currency, bucket) for the payment model test: the model moves money only as
 * transfers between two accounts; the test applies the engine's postings to a second instance.
 */
export type BucketName = "free" | "lockOut" | "lockIn"
export const bucketIndex: Record<BucketName, number> = { free: 0, lockOut: 1, lockIn: 2 }

/** Balances per (wallet, currency, bucket); every change is a transfer between two accounts. */
export class Ledger {
  readonly balances = new Map<string, bigint>()
  static key = (wallet: bigint, cur: string, bucket: BucketName) => `${wallet}|${cur}|${bucketIndex[bucket]}`
  get(wallet: bigint, cur: string, bucket: BucketName = "free"): bigint {
    return this.balances.get(Ledger.key(wallet, cur, bucket)) ?? 0n
  }
  move(from: [bigint, string, BucketName], to: [bigint, string, BucketName], amount: bigint) {
    if (amount === 0n) return
    const a = Ledger.key(...from),
      b = Ledger.key(...to)
    this.balances.set(a, (this.balances.get(a) ?? 0n) - amount)
    this.balances.set(b, (this.balances.get(b) ?? 0n) + amount)
  }
  /** Non-zero accounts, sorted, for comparison. */
  snapshot(): Array<[string, bigint]> {
    return [...this.balances.entries()].filter(([, v]) => v !== 0n).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  }
}
