/**
 * Summarises a V8 .cpuprofile (as written by `node --cpu-prof`, e.g. from BENCH_PROFILE=1): the
 * functions with the most self time, and the packages (node_modules/<name>, node internals, our
 * own source) their self time falls in. `--last S` keeps only the last S seconds (the final
 * measured window, when our service was measured last, without start-up and migrations);
 * `--skip-last T` first drops the final T seconds (e.g. the idle time between that window and the
 * service's exit). Usage: npx tsx bench/profile/top.ts <file> [rows] [--last S] [--skip-last T]
 */
import { loadProfile, shortUrl, windowOptions } from "./Profile.ts"

const args = process.argv.slice(2)
const { lastSeconds, skipSeconds } = windowOptions(args)
const [file, rowsArg] = args
if (file === undefined) {
  console.log("usage: npx tsx bench/profile/top.ts <file.cpuprofile> [rows] [--last S] [--skip-last T]")
  process.exit(2)
}
const rows = Number(rowsArg ?? 30)
const { byId, samples } = loadProfile(file, lastSeconds, skipSeconds)

// Self time per node: each sample's time delta belongs to the node that was on top.
const selfMicros = new Map<number, number>()
for (const { id, micros } of samples) selfMicros.set(id, (selfMicros.get(id) ?? 0) + micros)
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0)

const where = (url: string): string => {
  if (url === "") return "(native / V8)"
  if (url.startsWith("node:")) return "node internals"
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (match) return match[1]
  return url.includes("/src/") || url.includes("/schema/") || url.includes("/actors/") || url.includes("/sql/")
    ? "our source"
    : url
}
const add = (map: Map<string, number>, key: string, micros: number) => map.set(key, (map.get(key) ?? 0) + micros)
const byFunction = new Map<string, number>()
const byPackage = new Map<string, number>()
for (const [id, micros] of selfMicros) {
  const frame = byId.get(id)!.callFrame
  add(byFunction, `${frame.functionName || "(anonymous)"}  ${shortUrl(frame.url)}:${frame.lineNumber + 1}`, micros)
  add(byPackage, where(frame.url), micros)
}

const print = (title: string, map: Map<string, number>, limit: number) => {
  console.log(`\n${title}`)
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    console.log(
      `${((micros / total) * 100).toFixed(1).padStart(6)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${key}`
    )
  }
}
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`)
print("self time by package", byPackage, 15)
print("self time by function", byFunction, rows)
