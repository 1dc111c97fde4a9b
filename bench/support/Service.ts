/**
 * Our service as the benchmarks run it: `node scripts/start.mjs` (the compiled build), exactly as `npm start`
 * (an older checkout without it: `node --import tsx src/main.ts`, as its own `npm start` did), on
 * free ports with a known service key, on the PostgreSQL database it is given or, without one, on
 * its embedded PGlite in a temporary DATA_DIR. Also its CPU profile (BENCH_PROFILE=1). The
 * benchmarks are a tier of their own and import nothing from the tests.
 */
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import net from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const root = resolve(import.meta.dirname, "../..")

/**
 * The checkout whose service the HTTP benchmarks start (BENCH_SERVICE_ROOT, default this one): point it
 * at a worktree of an older commit (with its own `npm ci`) to measure before and after with one harness.
 */
export const serviceRoot = resolve(process.env.BENCH_SERVICE_ROOT || root)

/** `npm start` of the checkout under test, built first when it compiles (scripts/build.mjs). */
const startCommand = (): Array<string> => {
  const start = join(serviceRoot, "scripts/start.mjs")
  if (!existsSync(start)) return ["--import", "tsx", "src/main.ts"]
  execFileSync(process.execPath, [join(serviceRoot, "scripts/build.mjs")], { cwd: serviceRoot, stdio: "inherit" })
  return [start]
}

/** Where BENCH_PROFILE=1 leaves the service's .cpuprofile files (written when it stops). */
export const profileDirectory = join(root, "bench", "results", "profiles")

export const freePort = () =>
  new Promise<number>((done) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => done(port))
    })
  })

export interface RunningService {
  readonly base: string
  readonly key: string
  /** The database it runs on; undefined: embedded PGlite in `dataDir`. */
  readonly databaseUrl: string | undefined
  readonly dataDir: string
  /** The service's own node process (the primary when WORKERS > 1). */
  readonly pid: number
  readonly stop: () => Promise<void>
}

export interface StartOptions {
  readonly databaseUrl?: string
  /** Run under `--cpu-prof` into `profileDirectory`. */
  readonly profile?: boolean
  readonly env?: Record<string, string>
}

const startupLimitMs = 90_000

export const startService = async (options: StartOptions = {}): Promise<RunningService> => {
  if (serviceRoot !== root) console.log(`   service under test: ${serviceRoot} (BENCH_SERVICE_ROOT)`)
  const port = await freePort()
  const key = "bench-key-" + randomBytes(16).toString("hex")
  const dataDir = mkdtempSync(join(tmpdir(), "core-bench-"))
  const nodeOptions = [
    process.env.NODE_OPTIONS ?? "",
    options.profile ? `--cpu-prof --cpu-prof-dir=${profileDirectory}` : ""
  ]
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    MONITORING_PORT: String(await freePort()),
    SERVICE_KEYS: key,
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    NODE_OPTIONS: nodeOptions.join(" ").trim(),
    // A load generator is one client address and few credentials sending as fast as the service answers:
    // the C19 rate limits (100/s per address, 200/s per credential) would measure their own 429s. Set
    // high rather than 0, so every request still pays for the check it costs in production.
    RATE_LIMIT_IP_RPS: "1000000",
    RATE_LIMIT_CREDENTIAL_RPS: "1000000",
    ...options.env
  }
  if (options.databaseUrl !== undefined) env.DATABASE_URL = options.databaseUrl
  else delete env.DATABASE_URL
  const child = spawn(process.execPath, startCommand(), {
    cwd: serviceRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const base = `http://127.0.0.1:${port}`
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode}:\n${output}`)
    try {
      // A timeout per probe: a request that lands after the port opens but before the router is
      // attached may never be answered.
      if ((await fetch(base + "/core/v1/get_info", { signal: AbortSignal.timeout(2_000) })).status === 200) break
    } catch {
      /* not yet listening, or that probe hung */
    }
    if (Date.now() - started > startupLimitMs) {
      child.kill("SIGKILL")
      throw new Error(`service did not answer in ${startupLimitMs / 1000} s:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM")
      await new Promise<void>((done) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL")
          done()
        }, 20_000)
        child.once("exit", () => {
          clearTimeout(timer)
          done()
        })
      })
    }
    rmSync(dataDir, { recursive: true, force: true })
  }
  return { base, key, databaseUrl: options.databaseUrl, dataDir, pid: child.pid!, stop }
}

/** Which database a service runs on, without credentials. */
export const describeDatabase = (service: RunningService): string => {
  if (service.databaseUrl === undefined) return `embedded PGlite (DATA_DIR ${service.dataDir})`
  const url = new URL(service.databaseUrl)
  return `PostgreSQL ${url.hostname}:${url.port || "5432"}${url.pathname} (a fresh database)`
}

/**
 * The main thread's profile of process `pid` in `profileDirectory` (`CPU.<date>.<time>.<pid>.0.<n>.cpuprofile`;
 * tsx's loader thread writes its own, mostly idle, as thread 1), if any.
 */
export const mainThreadProfile = (pid: number): string | undefined => {
  try {
    return readdirSync(profileDirectory)
      .filter((f) => f.endsWith(".cpuprofile") && f.includes(`.${pid}.0.`))
      .map((f) => join(profileDirectory, f))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]
  } catch {
    return undefined
  }
}

/** bench/profile/top.ts on `lastSeconds` of a profile ending `skipSeconds` before its end, as text. */
export const profileTop = (file: string, rows: number, lastSeconds: number, skipSeconds: number): string =>
  execFileSync(
    process.execPath,
    [
      "--import",
      "tsx",
      join(root, "bench/profile/top.ts"),
      file,
      String(rows),
      "--last",
      String(lastSeconds),
      "--skip-last",
      skipSeconds.toFixed(2)
    ],
    { cwd: root, encoding: "utf8" }
  )
