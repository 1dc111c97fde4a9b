// `npm start`: the compiled service (dist/, rebuilt first when a source changed: scripts/build.mjs).
// Under WORKERS each worker process runs this file again and finds the build fresh.
import { ensureBuilt } from "./build.mjs"

ensureBuilt()
await import("../dist/src/main.js")
