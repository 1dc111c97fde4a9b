// Compiles the service to JavaScript in dist/ (tsconfig.build.json: emit only, `npm run typecheck` checks
// types), with the files it reads at run time (migrations, the currency seed, the payment page's assets),
// so `npm start` runs without a transpiler. `ensureBuilt()` rebuilds only when a source changed since the
// last build (a fingerprint of every source file's path, size and mtime in dist/.fingerprint).
//   node scripts/build.mjs            build when stale
//   node scripts/build.mjs --force    build anyway
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const sources = ["schema", "actors", "sql", "src", "client", "cli"]
const inputs = ["tsconfig.json", "tsconfig.build.json", "package-lock.json"]
/** Files the service reads beside its code, copied as they are. */
const assets = ["sql/migrations", "sql/seed", "src/http/payments/pages/assets"]

const walk = (dir, out) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) walk(path, out)
    else out.push(path)
  }
  return out
}

const fingerprint = () => {
  const hash = createHash("sha256")
  const files = [...sources.flatMap((dir) => walk(join(root, dir), [])), ...inputs.map((f) => join(root, f))].sort()
  for (const file of files) {
    const { size, mtimeMs } = statSync(file)
    hash.update(`${file}\0${size}\0${mtimeMs}\n`)
  }
  return hash.digest("hex")
}

const stampFile = join(root, "dist", ".fingerprint")

export const isFresh = () => existsSync(stampFile) && readFileSync(stampFile, "utf8") === fingerprint()

export const build = () => {
  let tsc
  try {
    tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  } catch {
    throw new Error("dist/ is missing or stale and TypeScript is not installed: run `npm ci && npm run build` first")
  }
  const print = fingerprint()
  // Built aside and swapped in, so a running service never sees half a build.
  const staging = join(root, `dist.building-${process.pid}`)
  rmSync(staging, { recursive: true, force: true })
  const run = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", staging], {
    cwd: root,
    stdio: "inherit"
  })
  if (run.status !== 0) {
    rmSync(staging, { recursive: true, force: true })
    throw new Error(`the build failed (tsc exited ${run.status})`)
  }
  for (const asset of assets) cpSync(join(root, asset), join(staging, asset), { recursive: true })
  writeFileSync(join(staging, ".fingerprint"), print)
  const old = join(root, `dist.old-${process.pid}`)
  if (existsSync(join(root, "dist"))) renameSync(join(root, "dist"), old)
  renameSync(staging, join(root, "dist"))
  rmSync(old, { recursive: true, force: true })
}

export const ensureBuilt = () => {
  if (!isFresh()) build()
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--force")) build()
  else ensureBuilt()
}
