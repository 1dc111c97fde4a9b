/**
 * The anchor: a bare node:http server, run as its own process, that answers every request with a
 * small JSON envelope shaped and sized like `get_info`'s (about 125 bytes, with an X-Request-Id
 * header), so the service and the bare runtime are loaded and measured the same way.
 * It listens on 127.0.0.1:$PORT and prints "listening" once ready.
 */
import { createServer } from "node:http"

const port = Number(process.env.PORT ?? 0)
const startedAt = Date.now()
let requestId = 0

const server = createServer((_request, response) => {
  const id = ++requestId
  const body = JSON.stringify({
    result: {
      status: "ok",
      version: "0.1.0",
      serverTimeUTC: new Date().toISOString(),
      uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000)
    },
    error: null,
    id
  })
  response.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": String(id)
  })
  response.end(body)
})

server.listen(port, "127.0.0.1", () => console.log("listening"))

const stop = () => server.close(() => process.exit(0))
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
