/** Starts the bare node:http anchor (bareNode.ts) as a child process on a free port. */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { freePort, root } from "../support/Service.ts"

export interface BareNodeAnchor {
  /** Every path answers alike; this is get_info's. */
  readonly url: string
  readonly pid: number
  readonly stop: () => Promise<void>
}

export const startAnchor = async (): Promise<BareNodeAnchor> => {
  const port = await freePort()
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "bench/anchor/bareNode.ts")], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"]
  })
  await new Promise<void>((ready, fail) => {
    child.once("exit", (code) => fail(new Error(`bare node anchor exited ${code} before listening`)))
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("listening")) ready()
    })
  })
  child.removeAllListeners("exit")
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    child.kill("SIGTERM")
    await exited
  }
  return { url: `http://127.0.0.1:${port}/core/v1/get_info`, pid: child.pid!, stop }
}
