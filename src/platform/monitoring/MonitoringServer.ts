/**
 * The private monitoring interface (CONTRACT C9) on its own host and port, never the public one:
 * GET /metrics (Prometheus text) and GET /health (200 when the database answers, else 503).
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import { ping } from "../../../sql/SystemRepo.ts"
import { AppConfigService } from "../Config.ts"
import { Metrics } from "./Metrics.ts"

export const MonitoringServer = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    const metrics = yield* Metrics
    const sql = yield* SqlClient.SqlClient
    const healthy = () =>
      Effect.runPromise(
        ping.pipe(
          Effect.provideService(SqlClient.SqlClient, sql),
          Effect.timeout("2 seconds"),
          Effect.as(true),
          Effect.orElseSucceed(() => false)
        )
      )
    const server = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0]
      if (request.method === "GET" && path === "/metrics") {
        // Figures kept in SQL are read first (Metrics.onScrape); a refresh never fails.
        Effect.runPromise(metrics.refresh).then(() =>
          response.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(metrics.prometheus())
        )
      } else if (request.method === "GET" && path === "/health") {
        healthy().then((ok) =>
          response
            .writeHead(ok ? 200 : 503, { "content-type": "application/json" })
            .end(JSON.stringify({ status: ok ? "ok" : "unavailable" }))
        )
      } else {
        response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ status: "not found" }))
      }
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.once("error", (error) => resume(Effect.die(error)))
        server.listen(config.monitoringPort, config.monitoringHost, () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
  })
)
