/**
 * A TypeScript worker process (`node --import tsx <script>`) spoken to over IPC: send a message,
 * await the next one. Used for the ledger worker and every load process, each in a process of its
 * own so its CPU can be told apart from the parent's.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { join } from "node:path"
import { root } from "./Service.ts"

export interface Child<In, Out extends { type: string }> {
  readonly process: ChildProcess
  readonly send: (message: In) => void
  /** The next message from the child; rejects if it reports `{ type: "error" }` or exits first. */
  readonly next: () => Promise<Out>
  /** Asks it to stop (`stopMessage`), then kills it if it has not exited after `graceMs`. */
  readonly stop: (stopMessage: In, graceMs?: number) => Promise<void>
}

export const startChild = <In, Out extends { type: string }>(
  script: string,
  argument: unknown,
  env: Record<string, string> = {},
  nodeOptions: ReadonlyArray<string> = []
): Child<In, Out> => {
  const child = spawn(
    process.execPath,
    [...nodeOptions, "--import", "tsx", join(root, script), JSON.stringify(argument)],
    {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    }
  )
  const inbox: Array<Out> = []
  const waiting: Array<{ resolve: (m: Out) => void; reject: (e: Error) => void }> = []
  const deliver = (message: Out) => {
    const waiter = waiting.shift()
    if (waiter === undefined) inbox.push(message)
    else if (message.type === "error") waiter.reject(new Error(`${script}: ${(message as any).message}`))
    else waiter.resolve(message)
  }
  child.on("message", (message: Out) => deliver(message))
  child.on("error", () => {
    /* a send racing the child's exit: its exit is what counts */
  })
  child.on("exit", (code) => {
    for (const waiter of waiting.splice(0)) waiter.reject(new Error(`${script} exited ${code} before answering`))
  })
  const next = () =>
    new Promise<Out>((resolve, reject) => {
      const queued = inbox.shift()
      if (queued !== undefined) {
        if (queued.type === "error") reject(new Error(`${script}: ${(queued as any).message}`))
        else resolve(queued)
        return
      }
      if (child.exitCode !== null) {
        reject(new Error(`${script} exited ${child.exitCode}`))
        return
      }
      waiting.push({ resolve, reject })
    })
  const stop = async (stopMessage: In, graceMs = 20_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    if (child.connected)
      child.send(stopMessage as any, (error) => {
        if (error) child.kill("SIGTERM")
      })
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
  }
  return { process: child, send: (message) => child.send(message as any), next, stop }
}
