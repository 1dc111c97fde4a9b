/**
 * The PostgreSQL server the benchmarks use, through its own command-line tools (createdb, dropdb,
 * psql, pgbench): which server, fresh databases, settings and queries, and the PostgreSQL anchor,
 * `pgbench -N` (the simple-update TPC-B-like script: three single-row writes and an insert per
 * transaction, each a durable commit) on its own fresh database of the same server.
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { promisify } from "node:util"
import { fmt, log, type Run, type Side } from "./Harness.ts"

const run = promisify(execFile)

/** The server to measure on: DATABASE_URL, else the local one the issue names. */
export const serverUrl = (): string =>
  process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ""
    ? process.env.DATABASE_URL
    : "postgres://postgres@127.0.0.1:5432/postgres"

export const describeServer = (url: string): string => {
  const u = new URL(url)
  const socket = u.searchParams.get("host")
  return `PostgreSQL ${u.hostname}:${u.port || "5432"}${socket !== null ? ` via unix socket in ${socket}` : " over TCP"}`
}

/**
 * libpq connection options (host, port, user) and environment (password) of a server URL; a
 * `?host=/dir` parameter (a unix socket directory, as sql-pg reads it too) wins over the hostname.
 */
const connection = (url: string) => {
  const u = new URL(url)
  const args = [
    "-h",
    u.searchParams.get("host") ?? u.hostname,
    "-p",
    u.port || "5432",
    "-U",
    decodeURIComponent(u.username || "postgres")
  ]
  const env = { ...process.env, ...(u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {}) }
  return { args, env }
}

/** The URL of database `name` on the same server. */
export const databaseUrl = (server: string, name: string): string => {
  const u = new URL(server)
  u.pathname = "/" + name
  return u.toString()
}

export const createDatabase = async (server: string, prefix: string): Promise<string> => {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`
  const { args, env } = connection(server)
  await run("createdb", [...args, name], { env })
  return name
}

export const dropDatabase = async (server: string, name: string): Promise<void> => {
  const { args, env } = connection(server)
  await run("dropdb", [...args, "--if-exists", "--force", name], { env }).catch((error) => {
    console.error(`   could not drop database ${name}: ${String(error)}`)
  })
}

/** A server setting, e.g. synchronous_commit, to print beside the figures. */
export const serverSetting = async (server: string, name: string): Promise<string> => {
  const { args, env } = connection(server)
  const { stdout } = await run(
    "psql",
    [...args, "-d", new URL(server).pathname.slice(1) || "postgres", "-Atc", `SHOW ${name}`],
    { env }
  )
  return stdout.trim()
}

/** The settings that decide whether a commit is durable, printed and recorded beside the figures. */
export const durability = async (server: string) => ({
  synchronous_commit: await serverSetting(server, "synchronous_commit"),
  fsync: await serverSetting(server, "fsync")
})

/** Rows of one query on the database of `url` (psql -At), each row's columns split on tabs. */
export const queryRows = async (url: string, query: string): Promise<Array<Array<string>>> => {
  const { args, env } = connection(url)
  const { stdout } = await run(
    "psql",
    [...args, "-d", new URL(url).pathname.slice(1) || "postgres", "-AtF", "\t", "-c", query],
    { env, maxBuffer: 16 * 1024 * 1024 }
  )
  return stdout
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => line.split("\t"))
}

export interface PgbenchAnchor {
  readonly database: string
  /** One `pgbench -N` run: transactions per second (without the initial connection time). */
  readonly measure: (clients: number, seconds: number) => Promise<number>
  readonly drop: () => Promise<void>
}

/** Creates a fresh database and fills it with `pgbench -i -s <scale>`. */
export const preparePgbench = async (server: string, scale = 1): Promise<PgbenchAnchor> => {
  const database = await createDatabase(server, "bench_pgbench")
  const { args, env } = connection(server)
  await run("pgbench", [...args, "-i", "-q", "-s", String(scale), database], { env })
  return {
    database,
    measure: async (clients, seconds) => {
      const { stdout } = await run(
        "pgbench",
        [...args, "-N", "-c", String(clients), "-j", "2", "-T", String(seconds), database],
        { env, maxBuffer: 16 * 1024 * 1024 }
      )
      const failed = /number of failed transactions: (\d+)/.exec(stdout)
      if (failed !== null && Number(failed[1]) > 0)
        throw new Error(`pgbench: ${failed[1]} failed transactions\n${stdout}`)
      const tps = /tps = ([0-9.]+) \(without initial connection time\)/.exec(stdout)
      if (tps === null) throw new Error(`pgbench: no TPS in its output:\n${stdout}`)
      return Number(tps[1])
    },
    drop: () => dropDatabase(server, database)
  }
}

/**
 * The pgbench anchor of a benchmark run: the server's durability line, a fresh pgbench database
 * (dropped when the run ends) and the side that measures `pgbench -N -c <clients>` for BENCH_SECONDS.
 */
export const pgbenchBeside = async (run: Run, server: string, clients: number) => {
  const settings = await durability(server)
  log(`   ${describeServer(server)}: synchronous_commit=${settings.synchronous_commit}, fsync=${settings.fsync}`)
  const anchor = await preparePgbench(server)
  run.defer(anchor.drop)
  const side: Side<number> = {
    label: "pgbench -N",
    measure: () => anchor.measure(clients, run.settings.seconds),
    report: (tps) => `${fmt(tps).padStart(8)} TPS`
  }
  return { durability: settings, side }
}

/** A fresh database for ours on the same server, dropped when the run ends; its URL. */
export const freshDatabase = async (run: Run, server: string, prefix: string): Promise<string> => {
  const name = await createDatabase(server, prefix)
  run.defer(() => dropDatabase(server, name))
  return databaseUrl(server, name)
}
