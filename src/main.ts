/** `npm start`: the service with its configuration from the environment (CONTRACT C1). */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfigService } from "./Config.ts"
import { AppLayer } from "./Server.ts"

const announce = Effect.gen(function*() {
  const config = yield* AppConfigService
  yield* Effect.logInfo(`core wallet service on http://${config.host}:${config.port} (monitoring http://${config.monitoringHost}:${config.monitoringPort}); database: ${config.databaseUrl._tag === "Some" ? "DATABASE_URL" : "embedded PGlite in " + config.dataDir}`)
}).pipe(Effect.provide(AppConfigService.fromEnv))

Layer.launch(Layer.merge(AppLayer, Layer.effectDiscard(announce))).pipe(NodeRuntime.runMain)
