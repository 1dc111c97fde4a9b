/**
 * Our service as a benchmark target: booted by the tests' startService() (a real `src/main.ts`
 * child process on free ports), with the tests' client for setting up wallets and sessions.
 * Embedded PGlite by default; with DATABASE_URL set, a fresh database on that PostgreSQL server.
 */
import { makeClient, type TestClient } from "../../test/support/Client.ts"
import { join } from "node:path"
import { root, startService, type RunningService } from "../../test/support/Service.ts"
import type { Target } from "./Target.ts"

export interface OurService {
  readonly service: RunningService
  readonly client: TestClient
  /** Which database the service runs on, without credentials. */
  readonly database: string
  /** A target for GET `path` on this service, with optional extra headers. */
  readonly target: (path: string, headers?: Record<string, string>) => Target
}

const describeDatabase = (service: RunningService): string => {
  if (service.databaseUrl === undefined) return `embedded PGlite (DATA_DIR ${service.dataDir})`
  const url = new URL(service.databaseUrl)
  return `PostgreSQL ${url.hostname}:${url.port || "5432"}${url.pathname} (fresh database on DATABASE_URL's server)`
}

/** Where BENCH_PROFILE=1 leaves the service's .cpuprofile files (written when it stops). */
export const profileDirectory = join(root, "bench", "results", "profiles")

export const startOurService = async (profile: boolean): Promise<OurService> => {
  const nodeOptions = [process.env.NODE_OPTIONS ?? "", profile ? `--cpu-prof --cpu-prof-dir=${profileDirectory}` : ""]
  const service = await startService({ env: { NODE_OPTIONS: nodeOptions.join(" ").trim() } })
  const stop = async () => { await service.stop() }
  return {
    service,
    client: makeClient(service),
    database: describeDatabase(service),
    target: (path, headers = {}) => ({ name: "core service", url: service.base + path, headers, pid: service.child.pid!, stop })
  }
}
