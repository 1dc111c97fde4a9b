/** `npm start`: the service with its configuration from the environment (CONTRACT C1). */
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer } from "effect"
import cluster from "node:cluster"
import { AppConfigService } from "./platform/Config.ts"
import { AppLayer } from "./Server.ts"
import { supervise, workerCount } from "./Supervisor.ts"

const announce = Effect.gen(function* () {
  const config = yield* AppConfigService
  const worker = process.env.WORKER_INDEX === undefined ? "" : `worker ${process.env.WORKER_INDEX}: `
  yield* Effect.logInfo(
    `${worker}core wallet service on http://${config.host}:${config.port} (monitoring http://${config.monitoringHost}:${config.monitoringPort}); database: ${config.databaseUrl._tag === "Some" ? "DATABASE_URL" : "embedded PGlite in " + config.dataDir}`
  )
  // C19 §1: the sandbox approves anyone's test card; say so once, at start.
  if (config.acquirer === "sandbox")
    yield* Effect.logWarning(
      `${worker}ACQUIRER=sandbox: the built-in card sandbox is on; its test cards (4242 4242 4242 4242) create money. Never in production.`
    )
}).pipe(Effect.provide(AppConfigService.fromEnv))

let workers = 1
try {
  workers = workerCount(process.env)
} catch (error) {
  console.error(String((error as Error).message))
  process.exit(1)
}

if (workers > 1 && cluster.isPrimary) {
  supervise(workers, Number(process.env.PORT ?? 8080))
} else {
  // SIGTERM/SIGINT interrupt the program; the layers then close in order (stop accepting, finish
  // in-flight requests, flush the ledger queue, close the database) and a clean stop exits 0.
  Layer.launch(Layer.merge(AppLayer, Layer.effectDiscard(announce))).pipe(
    NodeRuntime.runMain({
      teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? 0 : 1)
    })
  )
}
