/**
 * What the edge test files (edge-*.test.ts, validation-hostile-input) share: requests sent exactly as a
 * browser or an attacker would (any Content-Type or none, Origin, Sec-Fetch-Site, the `sid` cookie, a
 * chosen client address), concurrent floods counted by status, the routes of the served OpenAPI
 * document, and a start that must fail.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fetch as fetchFrom } from "undici"
import { agentFrom, type Reply } from "./Client.ts"
import { freePort, root, type RunningService, startArgs } from "./Service.ts"

export interface RawRequest {
  readonly method?: string
  readonly headers?: Record<string, string>
  /** Sent as bytes, so no Content-Type is added for it: only `headers` name one. */
  readonly body?: string
  /** The client address (a loopback address): another caller for the rate limits. */
  readonly from?: string
  /** Abort after this long (the test then fails: nothing may hang). */
  readonly timeoutMs?: number
}

/** One request with exactly the headers given. */
export const raw = async (base: string, path: string, request: RawRequest = {}): Promise<Reply> => {
  const response = await fetchFrom(base + path, {
    method: request.method ?? "GET",
    headers: request.headers,
    body: request.body === undefined ? undefined : Buffer.from(request.body, "utf8"),
    dispatcher: agentFrom(request.from ?? "127.0.0.1"),
    signal: AbortSignal.timeout(request.timeoutMs ?? 30_000)
  })
  const text = await response.text()
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = { raw: text }
  }
  return { status: response.status, body, headers: response.headers as unknown as Headers }
}

/**
 * `raw`, as a well-behaved client sends: a 429 (C19 §8) is waited out for its Retry-After seconds and
 * sent again, up to five times. For tests that sweep hundreds of routes from one credential and are
 * about something other than the rate limit, which stays at its default.
 */
export const rawPolitely = async (base: string, path: string, request: RawRequest = {}): Promise<Reply> => {
  for (let attempt = 0; ; attempt++) {
    const reply = await raw(base, path, request)
    if (reply.status !== 429 || attempt === 5) return reply
    const seconds = Number(reply.headers.get("retry-after") ?? "1")
    await new Promise((resolve) => setTimeout(resolve, 1000 * (Number.isFinite(seconds) ? seconds : 1)))
  }
}

/** `count` requests at once; answers them in order. */
export const flood = (count: number, send: (i: number) => Promise<Reply>): Promise<Array<Reply>> =>
  Promise.all(Array.from({ length: count }, (_, i) => send(i)))

/** How many replies had each status. */
export const statuses = (replies: ReadonlyArray<Reply>): Record<number, number> => {
  const counts: Record<number, number> = {}
  for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1
  return counts
}

export interface DocumentedRoute {
  readonly method: string
  readonly path: string
  readonly operation: any
}

/** Every route of the served OpenAPI document. */
export const documentedRoutes = async (service: RunningService): Promise<Array<DocumentedRoute>> => {
  const document = (await (await fetch(service.base + "/core/openapi.json")).json()) as any
  const routes: Array<DocumentedRoute> = []
  for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (["get", "post", "put", "patch", "delete"].includes(method))
        routes.push({ method: method.toUpperCase(), path, operation })
    }
  }
  return routes
}

/** Starts the service with `env` expecting it to stop at start: its exit code and stderr. */
export const startFailing = async (env: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), "core-edge-"))
  const childEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(await freePort()),
    MONITORING_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...env
  }
  delete childEnv.DATABASE_URL
  const child = spawn(process.execPath, startArgs, { cwd: root, env: childEnv })
  let output = ""
  child.stdout.on("data", (chunk) => (output += chunk))
  child.stderr.on("data", (chunk) => (output += chunk))
  const exitCode = await new Promise<number | null>((done) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      done(code)
    })
  })
  rmSync(dataDir, { recursive: true, force: true })
  return { exitCode, output }
}
