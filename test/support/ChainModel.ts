/**
 * An independent, pure model of CONTRACT C15 deposits on ONE crypto terminal ("Scanner pushes" and
 * "Deposits"), written from the contract alone (no import from src/, actors/ or sql/). It keeps the
 * current chain (height → header and items), the last `window` headers, the Incomes keyed by
 * (txHash, index), and the balances the Incomes move: each wallet's lock_in and free, Treasury "-1",
 * the unattributed wallet "-4" and the tariff's profit wallet. `push(block)` answers what the service
 * must answer (appended / replayed / reorg, or refused with its code) and applies the deposit rules.
 *
 * Assumptions where C15 leaves room (the integration test relies on the same):
 * - The kept window is the headers of the last `window` heights up to the tip: appending prunes the
 *   headers below tip − window + 1; a later reorg that lowers the tip does not bring them back.
 * - A key already held by a non-Canceled Income creates nothing, wherever it is seen again; a
 *   Finished Income whose block was orphaned is re-attached to the block that shows its key again.
 * - fee = min(feeFixed + A × feePercent / 100 rounded up to the decimals, A) for attributed Incomes
 *   (C15: fee ≤ A), 0 for unattributed ones.
 * - A deep reorg orphans at least `confirmations` blocks; forkHeight is the first orphaned height.
 */

export type Direction = "in" | "out"

export interface ChainItem {
  readonly txHash: string
  readonly index: number
  readonly direction: Direction
  readonly from: string | null
  readonly to: string
  readonly memo: string | null
  readonly amount: string
  readonly txId: string | null
}

export interface ChainBlock {
  readonly height: number
  readonly hash: string
  readonly parentHash: string
  readonly items: ReadonlyArray<ChainItem>
}

export type TxStateCode = 1 | 3 | 8 | 16

export interface Income {
  /** Model serial (1, 2, …): the test binds it to the service's txId. */
  readonly serial: number
  readonly key: string
  readonly txHash: string
  readonly index: number
  /** A wallet id, or "-4" while unattributed. */
  readonly holder: string
  readonly amount: bigint
  readonly fee: bigint
  /** 1 Processing, 3 final but held (unattributed), 8 Finished, 16 Canceled. */
  txState: TxStateCode
  /** The block it is attached to (first sight, or its re-attachment). */
  blockHash: string
  height: number
  /** Finished and its block is no longer in the current chain. */
  orphaned: boolean
}

export interface ItemOutcome {
  readonly txHash: string
  readonly index: number
  readonly direction: Direction
  /** The Income this item created or is recorded as; null for out items. */
  readonly income: number | null
  /** True when this push created that Income. */
  readonly created: boolean
  /** The credited wallet, "-4" unattributed, null for out items. */
  readonly walletId: string | null
}

export interface DeepReorg {
  readonly forkHeight: number
  readonly orphanedHeights: ReadonlyArray<number>
  /** Serials of the Finished Incomes this reorg orphaned. */
  readonly finished: ReadonlyArray<number>
}

export type PushOutcome =
  | {
      readonly kind: "appended" | "replayed" | "reorg"
      readonly height: number
      readonly hash: string
      readonly tipHeight: number
      readonly replayed: boolean
      readonly orphaned: ReadonlyArray<number>
      readonly items: ReadonlyArray<ItemOutcome>
      readonly deepReorg: DeepReorg | null
    }
  | { readonly kind: "refused"; readonly code: RefusalCode; readonly field: string }

/** 10205 BlockHeightGap, 10206 BlockNotConnected, 10207 BlockTooOld, 10208 DuplicateItem. */
export type RefusalCode = 10205 | 10206 | 10207 | 10208

export const TREASURY = "-1"
export const UNATTRIBUTED = "-4"

export interface ChainModelConfig {
  /** The terminal's confirmations (1..1000). */
  readonly confirmations: number
  /** The asset's decimals. */
  readonly decimals: number
  /** Lower-cased EVM address → wallet id (C15: EVM addresses compare case-insensitively). */
  readonly addresses: ReadonlyMap<string, string>
  /** The Deposit tariff (decimal strings, C7); absent = fee 0. */
  readonly feeFixed?: string
  readonly feePercent?: string
  /** The tariff's profit wallet (default "-2" Fees). */
  readonly profitWalletId?: string
  /** Kept headers (default 1000). */
  readonly window?: number
}

export interface Buckets {
  free: bigint
  lockIn: bigint
}

interface StoredBlock {
  readonly height: number
  readonly hash: string
  readonly parentHash: string
  /** Keys recorded in this block (a replay adds the new ones). */
  readonly keys: Set<string>
}

/** A decimal string in minor units; throws on more than `decimals` decimals or a malformed amount. */
export const toMinor = (amount: string, decimals: number): bigint => {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(amount)
  if (match === null) throw new Error(`malformed amount ${amount}`)
  const fraction = match[2] ?? ""
  if (fraction.length > decimals) throw new Error(`too many decimals: ${amount}`)
  return BigInt(match[1]! + fraction.padEnd(decimals, "0"))
}

/** Minor units as the exact decimal string (no trailing zeros, "0" for zero). */
export const fromMinor = (minor: bigint, decimals: number): string => {
  const negative = minor < 0n
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, "0")
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "")
  return (negative ? "-" : "") + whole + (fraction === "" ? "" : "." + fraction)
}

/** C7: feeFixed + amount × feePercent / 100, rounded up to the decimals (exact rational arithmetic). */
export const tariffFee = (amount: bigint, decimals: number, feeFixed = "0", feePercent = "0"): bigint => {
  const fixed = toMinor(feeFixed, decimals)
  const [whole, fraction = ""] = feePercent.split(".")
  const numerator = BigInt(whole! + fraction)
  const denominator = 100n * 10n ** BigInt(fraction.length)
  const product = amount * numerator
  const percentPart = (product + denominator - 1n) / denominator
  return fixed + percentPart
}

export const keyOf = (txHash: string, index: number): string => `${txHash}#${index}`

export const makeChainModel = (config: ChainModelConfig) => {
  const window = config.window ?? 1000
  const profit = config.profitWalletId ?? "-2"
  /** The current chain by height. */
  const chain = new Map<number, StoredBlock>()
  /** Every block ever accepted (orphaned ones too), by hash. */
  const seen = new Map<string, StoredBlock>()
  let tip: number | null = null
  const incomes: Array<Income> = []
  /** The newest Income of each key (an older Canceled one may precede it). */
  const byKey = new Map<string, Income>()
  const balances = new Map<string, Buckets>()
  let reorgs = 0
  const deepReorgs: Array<DeepReorg> = []

  const bucketsOf = (wallet: string): Buckets => {
    let row = balances.get(wallet)
    if (row === undefined) balances.set(wallet, (row = { free: 0n, lockIn: 0n }))
    return row
  }
  const holderOf = (to: string): string => config.addresses.get(to.toLowerCase()) ?? UNATTRIBUTED
  const inCurrentChain = (height: number, hash: string) => chain.get(height)?.hash === hash
  const lowestKept = (): number => Math.min(...chain.keys())

  const validate = (block: ChainBlock): PushOutcome | null => {
    const keys = new Set<string>()
    for (const [i, item] of block.items.entries()) {
      const key = keyOf(item.txHash, item.index)
      if (keys.has(key)) return { kind: "refused", code: 10208, field: `items[${i}]` }
      keys.add(key)
    }
    if (tip === null) return null
    if (block.height > tip + 1) return { kind: "refused", code: 10205, field: "height" }
    if (block.height === tip + 1)
      return block.parentHash === chain.get(tip)!.hash ? null : { kind: "refused", code: 10206, field: "parentHash" }
    if (block.height < lowestKept()) return { kind: "refused", code: 10207, field: "height" }
    if (chain.get(block.height)!.hash === block.hash) return null
    const parent = chain.get(block.height - 1)
    if (parent === undefined) return { kind: "refused", code: 10207, field: "height" }
    return parent.hash === block.parentHash ? null : { kind: "refused", code: 10206, field: "parentHash" }
  }

  /** Orphans heights from..tip: Incomes not Finished are Canceled, Finished ones flagged. */
  const orphanFrom = (from: number): { heights: Array<number>; finished: Array<number> } => {
    const heights: Array<number> = []
    const orphanedHashes = new Set<string>()
    for (let h = from; h <= tip!; h++) {
      heights.push(h)
      orphanedHashes.add(chain.get(h)!.hash)
      chain.delete(h)
    }
    const finished: Array<number> = []
    for (const income of incomes) {
      if (!orphanedHashes.has(income.blockHash)) continue
      if (income.txState === 8) {
        if (!income.orphaned) finished.push(income.serial)
        income.orphaned = true
      } else if (income.txState !== 16) {
        income.txState = 16
        bucketsOf(income.holder).lockIn -= income.amount
        bucketsOf(TREASURY).free += income.amount
      }
    }
    return { heights, finished }
  }

  const applyItem = (stored: StoredBlock, item: ChainItem): ItemOutcome => {
    const key = keyOf(item.txHash, item.index)
    const base = { txHash: item.txHash, index: item.index, direction: item.direction }
    stored.keys.add(key)
    if (item.direction === "out") return { ...base, income: null, created: false, walletId: null }
    const existing = byKey.get(key)
    if (existing !== undefined && existing.txState !== 16) {
      if (existing.orphaned) {
        existing.orphaned = false
        existing.blockHash = stored.hash
        existing.height = stored.height
      }
      return { ...base, income: existing.serial, created: false, walletId: existing.holder }
    }
    const holder = holderOf(item.to)
    const amount = toMinor(item.amount, config.decimals)
    let fee = 0n
    if (holder !== UNATTRIBUTED) {
      fee = tariffFee(amount, config.decimals, config.feeFixed, config.feePercent)
      if (fee > amount) fee = amount
    }
    const income: Income = {
      serial: incomes.length + 1,
      key,
      txHash: item.txHash,
      index: item.index,
      holder,
      amount,
      fee,
      txState: 1,
      blockHash: stored.hash,
      height: stored.height,
      orphaned: false
    }
    incomes.push(income)
    byKey.set(key, income)
    bucketsOf(TREASURY).free -= amount
    bucketsOf(holder).lockIn += amount
    return { ...base, income: income.serial, created: true, walletId: holder }
  }

  /** After every push: Incomes whose block has the required confirmations become final. */
  const finalize = () => {
    for (const income of incomes) {
      if (income.txState !== 1 || !inCurrentChain(income.height, income.blockHash)) continue
      if (tip! - income.height + 1 < config.confirmations) continue
      if (income.holder === UNATTRIBUTED) {
        income.txState = 3
        continue
      }
      income.txState = 8
      const holder = bucketsOf(income.holder)
      holder.lockIn -= income.amount
      holder.free += income.amount - income.fee
      bucketsOf(profit).free += income.fee
    }
  }

  const push = (block: ChainBlock): PushOutcome => {
    const refused = validate(block)
    if (refused !== null) return refused
    let kind: "appended" | "replayed" | "reorg" = "appended"
    let orphaned: Array<number> = []
    let deepReorg: DeepReorg | null = null
    let stored: StoredBlock
    if (tip !== null && block.height <= tip && chain.get(block.height)!.hash === block.hash) {
      kind = "replayed"
      stored = chain.get(block.height)!
    } else {
      if (tip !== null && block.height <= tip) {
        kind = "reorg"
        const result = orphanFrom(block.height)
        orphaned = result.heights
        reorgs++
        if (orphaned.length >= config.confirmations) {
          deepReorg = { forkHeight: block.height, orphanedHeights: orphaned, finished: result.finished }
          deepReorgs.push(deepReorg)
        }
      }
      stored = seen.get(block.hash) ?? {
        height: block.height,
        hash: block.hash,
        parentHash: block.parentHash,
        keys: new Set()
      }
      seen.set(block.hash, stored)
      chain.set(block.height, stored)
      tip = block.height
      for (const h of [...chain.keys()]) if (h <= tip - window) chain.delete(h)
    }
    const items = block.items.map((item) => applyItem(stored, item))
    finalize()
    return {
      kind,
      height: block.height,
      hash: block.hash,
      tipHeight: tip!,
      replayed: kind === "replayed",
      orphaned,
      items,
      deepReorg
    }
  }

  /** Σ of every bucket of every wallet (Treasury, −4 and the profit wallet included): always 0. */
  const total = (): bigint => [...balances.values()].reduce((sum, b) => sum + b.free + b.lockIn, 0n)

  return {
    config,
    push,
    total,
    tip: () => tip,
    tipHash: () => (tip === null ? null : chain.get(tip)!.hash),
    /** The current chain's header at a height, if kept. */
    header: (height: number) => chain.get(height),
    lowestKept: () => (tip === null ? null : lowestKept()),
    buckets: (wallet: string): Buckets => ({ ...bucketsOf(wallet) }),
    incomes: (): ReadonlyArray<Income> => incomes,
    income: (serial: number): Income => incomes[serial - 1]!,
    incomeOfKey: (txHash: string, index: number) => byKey.get(keyOf(txHash, index)),
    reorgs: () => reorgs,
    deepReorgs: (): ReadonlyArray<DeepReorg> => deepReorgs,
    profitWalletId: profit
  }
}

export type ChainModel = ReturnType<typeof makeChainModel>
