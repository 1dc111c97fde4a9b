/**
 * The reference scanner and signer (tools/evm/) as the EVM tests run them: separate processes started
 * the way `npm run scanner` / `npm run signer` start them, with their settings in the environment,
 * killed (SIGKILL, mid-flow) or stopped (SIGTERM) by the test. Nothing of tools/ is imported.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { root } from "./Service.ts"

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
