/**
 * The scanner's own metrics in Prometheus text (C19 §10), on `GET /metrics` of SCANNER_METRICS_PORT:
 * the node's head, the service's tip as the last push answered it, the lag between them in blocks,
 * accepted pushes and the reorgs seen (pushes that orphaned blocks, or a fork the scanner found by
 * parent hash).
 */
import { createServer, type Server } from "node:http"
import { Counter, Gauge, Registry } from "prom-client"

export interface ScannerMetrics {
  readonly head: (height: number) => void
  readonly tip: (height: number) => void
  readonly pushed: () => void
  readonly reorg: () => void
  readonly text: () => Promise<string>
  /** Serves /metrics on the port (0: a free one); answers the port. */
  readonly serve: (port: number) => Promise<number>
  readonly close: () => Promise<void>
}

export const makeScannerMetrics = (terminal: string): ScannerMetrics => {
  const registry = new Registry()
  registry.setDefaultLabels({ terminal })
  const head = new Gauge({ name: "scanner_head_height", help: "The node's latest block height", registers: [registry] })
  const tip = new Gauge({
    name: "scanner_tip_height",
    help: "The service's tip height of the terminal, as the last accepted push answered it",
    registers: [registry]
  })
  const lag = new Gauge({ name: "scanner_lag_blocks", help: "Node head minus service tip", registers: [registry] })
  const pushes = new Counter({
    name: "scanner_pushes_total",
    help: "Blocks the service accepted",
    registers: [registry]
  })
  const reorgs = new Counter({
    name: "scanner_reorgs_total",
    help: "Reorgs seen: forks found by parent hash, and pushes that orphaned blocks",
    registers: [registry]
  })
  let headValue = 0
  let tipValue = 0
  const refreshLag = () => lag.set(Math.max(0, headValue - tipValue))
  let server: Server | undefined
  return {
    head: (h) => {
      headValue = h
      head.set(h)
      refreshLag()
    },
    tip: (h) => {
      tipValue = h
      tip.set(h)
      refreshLag()
    },
    pushed: () => pushes.inc(),
    reorg: () => reorgs.inc(),
    text: () => registry.metrics(),
    serve: (port) =>
      new Promise((resolve, reject) => {
        server = createServer((request, response) => {
          if (request.method === "GET" && request.url?.split("?")[0] === "/metrics") {
            void registry.metrics().then((body) => {
              response.writeHead(200, { "content-type": registry.contentType })
              response.end(body)
            })
          } else {
            response.writeHead(404, { "content-type": "text/plain" })
            response.end("not found: GET /metrics\n")
          }
        })
        server.once("error", reject)
        server.listen(port, "0.0.0.0", () => {
          const address = server!.address()
          resolve(typeof address === "object" && address !== null ? address.port : port)
        })
      }),
    close: () => new Promise((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
  }
}
