/**
 * Where a pushed block goes in a terminal's chain (C15 "Scanner pushes"), as a pure function of the
 * kept headers: appended, a replay, a reorg (orphan then append), or refused. The chain keeps the
 * last `windowSize` headers; the first push starts it at any height.
 */

export const windowSize = 1000n

/** The kept headers: height → hash, contiguous from `first` to `tip`. */
export interface ChainView {
  readonly hashes: ReadonlyMap<bigint, string>
  readonly first: bigint | null
  readonly tip: bigint | null
}

export const emptyView: ChainView = { hashes: new Map(), first: null, tip: null }

export const viewOf = (headers: ReadonlyArray<{ readonly height: bigint; readonly hash: string }>): ChainView => {
  if (headers.length === 0) return emptyView
  const hashes = new Map<bigint, string>()
  for (const h of headers) hashes.set(h.height, h.hash)
  return { hashes, first: headers[0].height, tip: headers[headers.length - 1].height }
}

export type Placement =
  | { readonly _tag: "Append" }
  | { readonly _tag: "Replay" }
  | { readonly _tag: "Reorg"; readonly from: bigint; readonly orphaned: ReadonlyArray<bigint> }
  | { readonly _tag: "Refuse"; readonly rule: "HeightGap" | "NotConnected" | "TooOld" }

export const place = (view: ChainView, height: bigint, hash: string, parentHash: string): Placement => {
  if (view.tip === null || view.first === null) return { _tag: "Append" }
  if (height > view.tip + 1n) return { _tag: "Refuse", rule: "HeightGap" }
  if (height === view.tip + 1n)
    return parentHash === view.hashes.get(view.tip) ? { _tag: "Append" } : { _tag: "Refuse", rule: "NotConnected" }
  if (height < view.first) return { _tag: "Refuse", rule: "TooOld" }
  if (view.hashes.get(height) === hash) return { _tag: "Replay" }
  // Another block at a kept height: its parent must be our block below it (the first kept block has none here).
  if (height === view.first) return { _tag: "Refuse", rule: "TooOld" }
  if (parentHash !== view.hashes.get(height - 1n)) return { _tag: "Refuse", rule: "NotConnected" }
  const orphaned: Array<bigint> = []
  for (let h = height; h <= view.tip; h++) orphaned.push(h)
  return { _tag: "Reorg", from: height, orphaned }
}

/** The view after a placement (a refused block or a replay leaves it as it was). */
export const applyPlacement = (view: ChainView, placement: Placement, height: bigint, hash: string): ChainView => {
  if (placement._tag === "Refuse" || placement._tag === "Replay") return view
  const hashes = new Map(view.hashes)
  if (placement._tag === "Reorg") for (const h of placement.orphaned) hashes.delete(h)
  hashes.set(height, hash)
  const floor = height - windowSize + 1n
  let first = view.first === null ? height : view.first
  while (first < floor) hashes.delete(first++)
  return { hashes, first, tip: height }
}

/** The lowest height kept after appending at `height`. */
export const windowFloorAt = (height: bigint): bigint => height - windowSize + 1n

/** Items of blocks at or below this height are final (confirmations = tip − height + 1). */
export const finalHeight = (tip: bigint, confirmations: number): bigint => tip - BigInt(confirmations) + 1n
