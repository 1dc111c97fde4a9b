/**
 * Start-up time: from spawning the process to its first answered `get_info`, for `npm start`'s compiled
 * build (scripts/start.mjs, dist/ built beforehand) against the same source run through the tsx
 * transpiler (`node --import tsx src/main.ts`, what `npm start` ran before issue #28), alternating rounds,
 * medians. Both boot the embedded database from one already-migrated data directory copy each, so the
 * figure is the code's start, not first-run migrations.
 */
import { execFileSync, spawn } from "node:child_process"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fmt, median, type Benchmark } from "../support/Harness.ts"
import { freePort, root } from "../support/Service.ts"

/** The embedded service on `dataDir` and `port` (its own monitoring port), quiet. */
const envFor = async (dataDir: string, port: number): Promise<Record<string, string>> => {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    MONITORING_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    SERVICE_KEYS: "bench-startup-key",
    LOG_LEVEL: "warn"
  }
  delete env.DATABASE_URL
  return env
}

const bootSeconds = async (args: ReadonlyArray<string>, template: string): Promise<number> => {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-startup-"))
  cpSync(template, dataDir, { recursive: true })
  const port = await freePort()
  const env = await envFor(dataDir, port)
  const started = performance.now()
  const child = spawn(process.execPath, [...args], { cwd: root, env, stdio: "ignore" })
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the service exited ${child.exitCode}`)
      try {
        const reply = await fetch(`http://127.0.0.1:${port}/core/v1/get_info`, { signal: AbortSignal.timeout(1_000) })
        if (reply.status === 200) return (performance.now() - started) / 1000
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 20))
    }
  } finally {
    child.kill("SIGTERM")
    await new Promise((r) => child.once("exit", r))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export const startup: Benchmark<number, number> = {
  name: "startup",
  summary: "seconds from spawn to the first answered get_info: compiled npm start vs the tsx-transpiled source",
  prepare: async () => {
    execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" })
    // One migrated data directory, made by a first start and copied for every measured one.
    const seeded = mkdtempSync(join(tmpdir(), "bench-startup-seeded-"))
    await seedInto(seeded)
    return {
      anchor: {
        label: "tsx source",
        measure: () => bootSeconds(["--import", "tsx", "src/main.ts"], seeded),
        report: (s) => `${fmt(s, 2)} s`
      },
      ours: {
        label: "compiled",
        measure: () => bootSeconds([join(root, "scripts/start.mjs")], seeded),
        report: (s) => `${fmt(s, 2)} s`
      },
      conclude: (rounds) => {
        const ours = median(rounds.map((r) => r.ours)),
          anchor = median(rounds.map((r) => r.anchor))
        rmSync(seeded, { recursive: true, force: true })
        return {
          ratio: anchor / ours,
          headline: { anchor: `tsx source ${fmt(anchor, 2)} s`, ours: `compiled ${fmt(ours, 2)} s` },
          lines: [
            `   medians: compiled ${fmt(ours, 2)} s, tsx source ${fmt(anchor, 2)} s (${(anchor / ours).toFixed(2)}× faster)`
          ],
          record: { compiledSeconds: ours, tsxSeconds: anchor }
        }
      }
    }
  }
}

/** A data directory the service has migrated: one start on it, then a clean stop (kept for copying). */
const seedInto = async (dataDir: string): Promise<void> => {
  const port = await freePort()
  const env = await envFor(dataDir, port)
  const child = spawn(process.execPath, [join(root, "scripts/start.mjs")], { cwd: root, env, stdio: "ignore" })
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/core/v1/get_info`, { signal: AbortSignal.timeout(1_000) })).ok) break
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill("SIGTERM")
  await new Promise((r) => child.once("exit", r))
}
