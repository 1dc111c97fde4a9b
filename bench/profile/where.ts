/**
 * Where a service's CPU goes, by stage of a request (issue #25): every sample of a .cpuprofile's
 * window goes to one category, the first frame from the leaf toward the root that a rule below
 * claims (so Effect's or Schema's internals count for whichever of our stages called them). The
 * walk stops at the innermost `runLoop` (or `evaluate`) of Effect's fiber runtime: the frames under it belong to
 * whatever resumed the fiber (a SQL reply, a closed request stream), not to the fiber's own work,
 * and a fiber step that no rule claims is the runtime's own cost ("Effect runtime and other").
 * `--through-fibers` walks on to the root instead, to compare. "(idle)" samples are left out.
 *
 * Usage: npx tsx bench/profile/where.ts <file> [--last S] [--skip-last T] [--per-op-micros N]
 *          [--through-fibers] [--stacks CATEGORY [COUNT]] [--timeline]
 * `--per-op-micros N` (the benchmark's service CPU µs per operation) adds share × N per category;
 * `--stacks` prints some samples of one category (its key, as printed) with their stacks, to check a rule;
 * `--timeline` the busy share of each second counted back from the end, to find a window no benchmark printed.
 */
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { type CallFrame, loadProfile, shortUrl, windowOptions } from "./Profile.ts"

const categories = {
  socket: "socket and HTTP parsing (node:net, node:http, streams)",
  http: "HttpApi decode/encode, router, envelope, edge rules",
  json: "JSON text (request JSON.parse, response JSON.stringify and encode)",
  auth: "authentication (sessions, keys, second factor)",
  actor: "actor messaging (effect/cluster, rpc, our actor runtime)",
  reads: "SQL reads (driver, effect/sql, our repositories)",
  ledger: "ledger batch encoding and commit",
  pglite: "embedded PostgreSQL (PGlite: wasm, its socket server)",
  engine: "our engines (actors/*/Engine, pure)",
  ours: "our handlers, services, actor behaviours, metrics",
  gc: "GC",
  other: "Effect runtime and other"
} as const
type Category = keyof typeof categories

const inProject = (url: string, ...paths: Array<string>) =>
  paths.some((path) => new RegExp(`/(dist/)?${path}`).test(url.replace(/^.*node_modules\/.*$/, "")))

/** Source lines `from`..`to` around a frame's function (0-based, relative to its first line), "" when unreadable. */
const sourceCache = new Map<string, Array<string>>()
const source = (frame: CallFrame, from: number, to: number): string => {
  if (!frame.url.startsWith("file://")) return ""
  let lines = sourceCache.get(frame.url)
  if (lines === undefined) {
    const path = fileURLToPath(frame.url)
    lines = existsSync(path) ? readFileSync(path, "utf8").split("\n") : []
    sourceCache.set(frame.url, lines)
  }
  return lines.slice(Math.max(0, frame.lineNumber + from), frame.lineNumber + to).join("\n")
}
// V8 shows no frame for JSON.parse or JSON.stringify: their time is the self time of the function calling them.
const callsJson = (frame: CallFrame) => /JSON\.(parse|stringify)\(/.test(source(frame, 0, 12))

/**
 * The category a frame claims, if any. `leaf`: the frame on top (its self time). `caller`: the next
 * frame toward the root, which decides what a schema encode is for.
 */
const claim = (frame: CallFrame, leaf: boolean, caller: CallFrame | undefined): Category | "wire" | undefined => {
  const { url, functionName } = frame
  if (functionName === "(garbage collector)") return "gc"
  if (url === "") return undefined
  const effect = /node_modules\/effect\/dist\/(.*)$/.exec(url)?.[1]
  const http = effect?.startsWith("http/") || effect?.startsWith("http-api/") || inProject(url, "src/http/[A-Z]")
  if (leaf && (http || /@effect\/platform-node/.test(url)) && callsJson(frame)) return "json"
  // The response body's schema encode: the closure Schema.encodeUnknownEffect returns, called by HttpApiBuilder.
  if (effect === "Schema.js" && caller?.url.endsWith("effect/dist/http-api/HttpApiBuilder.js"))
    if (source(frame, -2, 0).includes("SchemaParser.encode")) return "json"
  if (
    /^node:(net|_http_|stream|internal\/stream)/.test(url) ||
    /@effect\/platform-node(-shared)?\/dist\/Node(HttpServer|HttpIncomingMessage|Stream|Sink|Socket)/.test(url)
  )
    return "wire"
  if (
    inProject(url, "src/http/Auth\\.js", "src/services/wallets/(Credentials|SecondFactorGate)\\.js") ||
    inProject(url, "src/platform/(SecondFactor|ServiceKeys)\\.js")
  )
    return "auth"
  if (http) return "http"
  if (effect?.startsWith("cluster/") || effect?.startsWith("rpc/")) return "actor"
  if (inProject(url, "src/platform/ActorRuntime\\.js", "actors/[a-z]+/Protocol\\.js")) return "actor"
  if (url.startsWith("wasm://") || /node_modules\/@electric-sql\/pglite/.test(url)) return "pglite"
  if (inProject(url, "src/platform/LedgerWriter\\.js", "sql/(LedgerCommit|ArrayLiterals|Ledger)\\.js")) return "ledger"
  if (effect?.startsWith("sql/") || /node_modules\/(@effect\/sql-pg|pg|pg-[a-z]+|postgres)\//.test(url)) return "reads"
  if (inProject(url, "sql/", "src/platform/db/")) return "reads"
  if (inProject(url, "actors/[a-z]+/Engine\\.js", "actors/room/(IdIndex|Matching|Ratio|EngineEvents)\\.js"))
    return "engine"
  // schema/ (money, ids) runs inside Schema's transformations: whoever decodes or encodes claims it.
  if (inProject(url, "src/", "actors/")) return "ours"
  return undefined
}

const isLedger = (frame: CallFrame) =>
  inProject(frame.url, "src/platform/LedgerWriter\\.js", "sql/(LedgerCommit|ArrayLiterals|Ledger)\\.js")
const isFiberLoop = (frame: CallFrame) =>
  (frame.functionName === "runLoop" || frame.functionName === "evaluate") &&
  frame.url.endsWith("effect/dist/internal/effect.js")

/**
 * One sample's category. A socket frame is the SQL client's when the SQL client is further up the
 * same step (a query written to PostgreSQL; PGlite's, its answer), else the HTTP server's; SQL work is the ledger's when
 * the ledger writer or its statement is in the same fiber step (the driver's work on the batch's
 * statement, run by the runtime after the writer's step, cannot be told from a read's and stays there).
 */
const categorise = (stack: ReadonlyArray<CallFrame>, throughFibers: boolean): Category => {
  const top = stack[0]
  if (top === undefined || top.functionName === "(program)") return "other"
  const boundary = throughFibers ? -1 : stack.findIndex(isFiberLoop)
  const step = boundary < 0 ? stack : stack.slice(0, boundary)
  let socket = false
  for (let i = 0; i < step.length; i++) {
    const found = claim(step[i], i === 0, step[i + 1])
    if (found === undefined) continue
    if (found === "wire") {
      socket = true
      continue
    }
    if (socket && found !== "reads" && found !== "ledger" && found !== "pglite") return "socket"
    if (found === "reads" && step.some(isLedger)) return "ledger"
    return found
  }
  return socket ? "socket" : "other"
}

const args = process.argv.slice(2)
const { lastSeconds, skipSeconds } = windowOptions(args)
const option = (name: string, count = 1): Array<string> | undefined => {
  const at = args.indexOf(name)
  return at < 0 ? undefined : args.splice(at, count + 1).slice(1)
}
const throughFibers = option("--through-fibers", 0) !== undefined
const perOp = option("--per-op-micros")?.map(Number)[0]
const stacksOf = option("--stacks", 2)
const timeline = option("--timeline", 0) !== undefined
const [file] = args
if (file === undefined) {
  console.log(
    "usage: npx tsx bench/profile/where.ts <file.cpuprofile> [--last S] [--skip-last T] [--per-op-micros N]" +
      " [--through-fibers] [--stacks CATEGORY COUNT] [--timeline]"
  )
  process.exit(2)
}

const profile = loadProfile(file, lastSeconds, skipSeconds)
const micros = new Map<Category, number>()
const examples: Array<ReadonlyArray<CallFrame>> = []
let busy = 0
let idle = 0
// A delta much longer than the sampling interval is mostly time the process waited for a core (on a
// loaded machine, a third of the window): weighted in full it would be charged to wherever the process
// was preempted (often a socket write that woke its peer), so it counts as two intervals at most.
const cap = profile.medianInterval * 2
for (const { id, micros: delta } of profile.samples) {
  const sample = { id, micros: Math.min(delta, cap) }
  if (profile.byId.get(sample.id)!.callFrame.functionName === "(idle)") {
    idle += sample.micros
    continue
  }
  const stack = profile.stack(sample.id)
  const category = categorise(stack, throughFibers)
  micros.set(category, (micros.get(category) ?? 0) + sample.micros)
  busy += sample.micros
  if (category === stacksOf?.[0]) examples.push(stack)
}

if (timeline) {
  const seconds = new Map<number, { busy: number; all: number }>()
  let fromEnd = profile.samples.reduce((sum, sample) => sum + sample.micros, 0)
  for (const sample of profile.samples) {
    const second = Math.floor(fromEnd / 1e6)
    const entry = seconds.get(second) ?? { busy: 0, all: 0 }
    entry.all += sample.micros
    if (profile.byId.get(sample.id)!.callFrame.functionName !== "(idle)") entry.busy += sample.micros
    seconds.set(second, entry)
    fromEnd -= sample.micros
  }
  for (const [second, { busy, all }] of [...seconds].sort((a, b) => a[0] - b[0]))
    console.log(
      `${String(second).padStart(4)}–${second + 1} s before the end: ${((busy / all) * 100).toFixed(0)}% busy`
    )
  process.exit(0)
}

if (stacksOf !== undefined) {
  // Evenly spread over the window, so one burst does not fill the list.
  const count = Number(stacksOf[1] ?? 5)
  for (let k = 0; k < Math.min(count, examples.length); k++) {
    const stack = examples[Math.floor((k * examples.length) / Math.min(count, examples.length))]
    console.log("----")
    for (const frame of stack) {
      console.log(`  ${frame.functionName || "(anonymous)"}  ${shortUrl(frame.url)}:${frame.lineNumber + 1}`)
      if (!throughFibers && isFiberLoop(frame)) break
    }
  }
  process.exit(0)
}

console.log(
  `${file}: ${(busy / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle in the window` +
    (throughFibers ? " (stacks walked through fiber resumptions)" : "")
)
const header = perOp === undefined ? "" : `  µs/op (of ${perOp})`
console.log(`\n  share${header}  category`)
for (const [key, label] of Object.entries(categories) as Array<[Category, string]>) {
  const share = (micros.get(key) ?? 0) / Math.max(1, busy)
  const perOpText = perOp === undefined ? "" : `  ${(share * perOp).toFixed(0).padStart(5 + String(perOp).length)}`
  console.log(`${(share * 100).toFixed(1).padStart(6)}%${perOpText}  ${label}  [${key}]`)
}
