/**
 * Boots the real service as a child process (`node scripts/start.mjs`: the compiled build, built once
 * per test run by test/support/BuildOnce.ts), exactly as `npm start` does, on free ports. With DATABASE_URL set it first creates a fresh database on that
 * server for this service; without it the service uses its embedded PGlite in a temp DATA_DIR. Either starts as
 * a copy of the run's migrated template (test/support/Template.ts) unless `fromScratch`.
 */
import { it } from "@effect/vitest"
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import net from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { dropDatabase } from "./Postgres.ts"
import { fillDataDir, newServerDatabase } from "./Template.ts"

export const root = resolve(import.meta.dirname, "../..")

/** `npm start`'s command after `node`: the compiled service (scripts/start.mjs). */
export const startArgs: ReadonlyArray<string> = [join(root, "scripts/start.mjs")]

const probePort = () =>
  new Promise<number>((done) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => done(port))
    })
  })

/** Ports this test process has handed out: the OS may offer a closed probe's port again (a service's PORT once
 * came back as its MONITORING_PORT, and the start failed with EADDRINUSE). */
const handedOut = new Set<number>()

export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = await probePort()
    if (handedOut.has(port)) continue
    handedOut.add(port)
    return port
  }
}

const canBind = (port: number) =>
  new Promise<boolean>((done) => {
    const server = net.createServer()
    server.once("error", () => done(false))
    server.listen(port, "127.0.0.1", () => server.close(() => done(true)))
  })

/**
 * `count` consecutive free ports (WORKERS: worker i serves monitoring on the first + i - 1, so a
 * neighbour taken by another test's service would stop worker 2 before it served).
 */
export const freePorts = async (count: number): Promise<number> => {
  for (;;) {
    const first = await freePort()
    let free = first + count - 1 <= 65_535
    for (let next = first + 1; free && next < first + count; next++)
      free = !handedOut.has(next) && (await canBind(next))
    if (free) {
      for (let next = first + 1; next < first + count; next++) handedOut.add(next)
      return first
    }
  }
}

export interface RunningService {
  readonly base: string
  readonly monitoring: string
  readonly key: string
  readonly databaseUrl: string | undefined
  readonly dataDir: string
  readonly child: ChildProcess
  readonly log: () => string
  readonly stop: (signal?: NodeJS.Signals, keepData?: boolean) => Promise<number | null>
}

export interface StartOptions {
  /** Reuse this database (a second process over the same PostgreSQL). */
  readonly databaseUrl?: string
  readonly env?: Record<string, string>
  /** Monitoring ports to keep free after the first (WORKERS > 1 serves one per worker). */
  readonly monitoringPorts?: number
  /** Reuse this embedded data directory (a restart of the same embedded database). */
  readonly dataDir?: string
  /** A new database starts empty, not from the run's migrated template: the service migrates it from scratch. */
  readonly fromScratch?: boolean
}

export const usingRealPostgres = (): boolean => (process.env.DATABASE_URL ?? "").length > 0

/**
 * The SECRETS_KEY of each database this run created, as its first service generated it (DATA_DIR/secrets.key).
 * Every later process on that database is given the same key, as a deployment must (C19 §6: the service
 * warns that processes sharing DATABASE_URL need one key): a second process, a restart with a new DATA_DIR.
 */
const secretsKeys = new Map<string, string>()

export const startService = async (options: StartOptions = {}): Promise<RunningService> => {
  const port = await freePort()
  const monitoringPort = await freePorts(options.monitoringPorts ?? 1)
  const key = "test-key-" + randomBytes(16).toString("hex")
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "core-test-"))
  const databaseUrl =
    options.databaseUrl ??
    (usingRealPostgres() ? await newServerDatabase(process.env.DATABASE_URL!, options.fromScratch) : undefined)
  // A new embedded database: the run's migrated template copied into its DATA_DIR.
  if (options.dataDir === undefined && databaseUrl === undefined) fillDataDir(dataDir, options.fromScratch)
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    MONITORING_PORT: String(monitoringPort),
    SERVICE_KEYS: key,
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...options.env
  }
  // WORKERS: worker i is the cluster runner on RUNNER_PORT_BASE + i - 1; free ones, as other tests' services run beside.
  const workers = Number(options.env?.WORKERS ?? "1")
  if (workers > 1 && options.env?.RUNNER_PORT_BASE === undefined)
    env.RUNNER_PORT_BASE = String(await freePorts(workers))
  // PUBLIC_BASE_URL defaults to the service's own http://HOST:PORT (C16); a caller's shell does not override it.
  if (options.env?.PUBLIC_BASE_URL === undefined) delete env.PUBLIC_BASE_URL
  // "{key}" in SERVICE_KEYS: the test's admin key among other (scoped) items.
  env.SERVICE_KEYS = env.SERVICE_KEYS.replaceAll("{key}", key)
  if (databaseUrl !== undefined) env.DATABASE_URL = databaseUrl
  else delete env.DATABASE_URL
  const sharedKey = databaseUrl === undefined ? undefined : secretsKeys.get(databaseUrl)
  if (options.env?.SECRETS_KEY === undefined && sharedKey !== undefined) env.SECRETS_KEY = sharedKey
  const child = spawn(process.execPath, startArgs, {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const base = `http://127.0.0.1:${port}`
  const started = Date.now()
  /** A start that failed leaves nothing behind: the data directory and a database made for it go. */
  const failed = async (message: string): Promise<never> => {
    if (options.databaseUrl === undefined) {
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true })
      if (databaseUrl !== undefined) await dropDatabase(databaseUrl)
    }
    throw new Error(message)
  }
  for (;;) {
    if (child.exitCode !== null) await failed(`service exited ${child.exitCode}:\n${output}`)
    try {
      // A timeout per probe: a request that lands after the port opens but before the router is
      // attached is never answered, so a probe without one could wait for undici's 300 s.
      if ((await fetch(base + "/core/v1/get_info", { signal: AbortSignal.timeout(2_000) })).status === 200) break
    } catch {
      /* not yet listening, or that probe hung */
    }
    if (Date.now() - started > 90_000) {
      child.kill("SIGKILL")
      await new Promise((r) => setTimeout(r, 500)) // let it release the database before the drop
      await failed(`service did not answer in 90 s:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  // The first service of a database this run made: remember the key it generated for the next ones.
  const keyFile = join(dataDir, "secrets.key")
  if (
    databaseUrl !== undefined &&
    env.SECRETS_KEY === undefined &&
    !secretsKeys.has(databaseUrl) &&
    existsSync(keyFile)
  )
    secretsKeys.set(databaseUrl, readFileSync(keyFile, "utf8").trim())
  /** Stops the process; `keepData` leaves the embedded data directory for a restart. */
  const stop = async (signal: NodeJS.Signals = "SIGTERM", keepData = false) => {
    if (child.exitCode === null) {
      child.kill(signal)
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
    if (!keepData && options.databaseUrl === undefined) {
      rmSync(dataDir, { recursive: true, force: true })
      // A database this service created for itself goes with it.
      if (databaseUrl !== undefined) await dropDatabase(databaseUrl)
    }
    return child.exitCode
  }
  return {
    base,
    monitoring: `http://127.0.0.1:${monitoringPort}`,
    key,
    databaseUrl,
    dataDir,
    child,
    log: () => output,
    stop
  }
}

/**
 * A test that needs a real PostgreSQL server (direct SQL access, several processes, LISTEN/NOTIFY).
 * Without DATABASE_URL it is skipped, and says so loudly.
 */
export const itWithServer = (name: string, body: () => Promise<void>, timeout?: number) => {
  if (!usingRealPostgres()) {
    process.stderr.write(`\n*** SKIPPED (needs DATABASE_URL, a real PostgreSQL server): ${name}\n`)
  }
  return it.skipIf(!usingRealPostgres())(name, body, timeout)
}
