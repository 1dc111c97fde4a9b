/**
 * vitest's global setup: the service is compiled once per test run (scripts/build.mjs, only when a source
 * changed), before any file starts one, so the services the tests boot run what `npm start` runs and
 * never race to build it.
 */
import { execFileSync } from "node:child_process"
import { join, resolve } from "node:path"

export default function setup(): void {
  const root = resolve(import.meta.dirname, "../..")
  execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" })
}
