/**
 * Reading a V8 .cpuprofile (as written by `node --cpu-prof`), shared by top.ts and where.ts: the
 * samples of a time window, each with the node on top of its stack and the time it stands for, and
 * a node's stack from the leaf to the root.
 */
import { readFileSync } from "node:fs"

export interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}
export interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly hitCount?: number
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** The window options both tools take: `--last S` and `--skip-last T`, removed from `args`. */
export const windowOptions = (args: Array<string>): { readonly lastSeconds: number; readonly skipSeconds: number } => {
  const lastAt = args.indexOf("--last")
  const lastSeconds = lastAt >= 0 ? Number(args.splice(lastAt, 2)[1]) : Infinity
  const skipAt = args.indexOf("--skip-last")
  const skipSeconds = skipAt >= 0 ? Number(args.splice(skipAt, 2)[1]) : 0
  return { lastSeconds, skipSeconds }
}

export interface LoadedProfile {
  /** The median time between samples: the sampling interval when the process had the CPU. */
  readonly medianInterval: number
  readonly byId: ReadonlyMap<number, ProfileNode>
  /** Every sample of the window: the node on top of the stack and the microseconds it stands for. */
  readonly samples: ReadonlyArray<{ readonly id: number; readonly micros: number }>
  /** The node's frames from the leaf to the root (the root itself, "(root)", left out). */
  readonly stack: (id: number) => ReadonlyArray<CallFrame>
}

/**
 * The samples of the last `lastSeconds` of the profile ending `skipSeconds` before its end: each
 * sample's time delta belongs to the node that was on top when it was taken.
 */
export const loadProfile = (file: string, lastSeconds: number, skipSeconds: number): LoadedProfile => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const span = profile.timeDeltas.reduce((a, b) => a + b, 0)
  const samples: Array<{ id: number; micros: number }> = []
  let at = 0
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0
    const fromEnd = span - at - skipSeconds * 1e6
    if (fromEnd >= 0 && fromEnd <= lastSeconds * 1e6) samples.push({ id, micros: profile.timeDeltas[i] ?? 0 })
  })
  const stack = (id: number) => {
    const frames: Array<CallFrame> = []
    for (let at: number | undefined = id; at !== undefined && parent.has(at); at = parent.get(at))
      frames.push(byId.get(at)!.callFrame)
    return frames
  }
  const sorted = [...profile.timeDeltas].sort((a, b) => a - b)
  const medianInterval = sorted[Math.floor(sorted.length / 2)] ?? 0
  return { medianInterval, byId, samples, stack }
}

/** A frame's url with the checkout and node_modules/ left out: `effect/dist/Context.js`, `src/http/Auth.js`. */
export const shortUrl = (url: string) =>
  url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(?:dist\/)?(src|schema|actors|sql)\//, "$1/")
