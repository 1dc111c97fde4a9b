/**
 * The reference scanner and signer (tools/evm/) as the EVM tests run them: separate processes started
 * the way `npm run scanner` / `npm run signer` start them, with their settings in the environment,
 * killed (SIGKILL, mid-flow) or stopped (SIGTERM) by the test, and a relay that takes their node or
 * service down and back. Nothing of tools/ is imported.
 */
import { type ChildProcess, spawn } from "node:child_process"
import net from "node:net"
import { join } from "node:path"
import { freePort, root } from "./Service.ts"

export interface ToolProcess {
  readonly log: () => string
  /** SIGTERM, or SIGKILL for a kill mid-flow; resolves once it exited. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<void>
}

export const startTool = (tool: "scanner" | "signer", env: Record<string, string>): ToolProcess => {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", join(root, `tools/evm/${tool}/main.ts`)], {
    cwd: root,
    env: { ...(process.env as Record<string, string>), ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  return {
    log: () => output,
    stop: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill(signal)
      })
  }
}

/** Polls `check` until it answers something other than undefined (or throws after `timeoutMs`). */
export const eventually = async <T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  context: () => string = () => ""
): Promise<T> => {
  const started = Date.now()
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined) return value
    } catch (error) {
      last = error
    }
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out waiting for ${what}${last === undefined ? "" : `: ${String(last)}`}\n${context()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * A TCP relay in front of a node or a service that the test can take down and bring back on the
 * same port: down closes every connection and refuses new ones (what a crashed peer looks like).
 */
export const startRelay = async (target: string) => {
  const { hostname, port: targetPort } = new URL(target)
  const sockets = new Set<net.Socket>()
  const port = await freePort()
  let server: net.Server | undefined
  const up = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(targetPort), hostname)
        for (const s of [client, upstream]) {
          sockets.add(s)
          s.on("close", () => sockets.delete(s))
          s.on("error", () => s.destroy())
        }
        client.pipe(upstream).pipe(client)
      })
      server.listen(port, "127.0.0.1", () => resolve())
    })
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy()
      server?.close(() => resolve())
    })
  await up()
  return { url: `http://127.0.0.1:${port}`, up, down }
}
