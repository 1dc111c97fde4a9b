/**
 * One measured window against one target: spawns the load generator (load/cannon.ts) as its own
 * process, lets it warm up, reads the server's CPU clock, lets it run the window, reads the clock
 * again, and turns the difference into CPU microseconds per completed request.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { root } from "../../test/support/Service.ts"
import type { LoadSpec, LoadSummary } from "../load/cannon.ts"
import { cpuMicros } from "./Cpu.ts"
import type { Settings } from "./Settings.ts"
import type { Target } from "./Target.ts"

export interface Measurement {
  readonly reqPerSec: number
  readonly cpuMicrosPerRequest: number
  /** Server CPU time over wall time in the window (100 = one core busy). */
  readonly serverCpuPercent: number
  /** The load generator's own CPU over wall time: near 100 means it, not the server, may be the limit. */
  readonly loadCpuPercent: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly completed: number
  readonly elapsedSeconds: number
}

type FromLoad = { type: "ready" } | { type: "result"; summary: LoadSummary }

export const measure = (target: Target, settings: Settings): Promise<Measurement> =>
  new Promise((resolve, reject) => {
    const spec: LoadSpec = {
      url: target.url,
      headers: target.headers,
      connections: settings.connections,
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds
    }
    const load = spawn(process.execPath, ["--import", "tsx", join(root, "bench/load/cannon.ts"), JSON.stringify(spec)], {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    let before: { server: number; load: number; wall: number } | undefined
    let settled = false
    load.on("message", (message: FromLoad) => {
      if (message.type === "ready") {
        before = { server: cpuMicros(target.pid), load: cpuMicros(load.pid!), wall: performance.now() }
        load.send({ type: "go" })
        return
      }
      const wallSeconds = (performance.now() - before!.wall) / 1000
      const serverCpu = cpuMicros(target.pid) - before!.server
      const loadCpu = cpuMicros(load.pid!) - before!.load
      const s = message.summary
      settled = true
      if (s.errors > 0 || s.timeouts > 0 || s.non2xx > 0 || s.completed === 0) {
        reject(new Error(`${target.name}: ${s.completed} responses, ${s.errors} errors, ${s.timeouts} timeouts, ` +
          `${s.non2xx} not 2xx (status codes ${JSON.stringify(s.statusCodes)}): the figures would be meaningless`))
        return
      }
      resolve({
        reqPerSec: s.completed / s.elapsedSeconds,
        cpuMicrosPerRequest: serverCpu / s.completed,
        serverCpuPercent: (serverCpu / 1e6 / wallSeconds) * 100,
        loadCpuPercent: (loadCpu / 1e6 / wallSeconds) * 100,
        latencyP50Ms: s.latencyP50Ms,
        latencyP99Ms: s.latencyP99Ms,
        completed: s.completed,
        elapsedSeconds: s.elapsedSeconds
      })
    })
    load.on("exit", (code) => {
      if (!settled) reject(new Error(`load generator exited ${code} before reporting a result`))
    })
  })
