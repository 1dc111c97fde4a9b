/**
 * One webhook attempt over node:http (src/platform/WebhookHttp.ts; docs/WEBHOOKS.md "SSRF guard")
 * against a local server: 2xx delivered with the exact bytes and headers, a 3xx is a failed attempt and
 * its Location is not followed, a slow receiver times out, and without the private-address allowance a
 * loopback literal or a name resolving to loopback is refused before any connection ("destination refused", C19 §6).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { lookup } from "node:dns/promises"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { postWebhook } from "../../src/platform/WebhookHttp.ts"

const hits: Array<{ path: string; body: string; headers: http.IncomingHttpHeaders }> = []
let server: http.Server
let port = 0

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      hits.push({ path: req.url ?? "", body, headers: req.headers })
      if (req.url === "/redirect") {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/target` })
        res.end()
      } else if (req.url === "/slow") {
        setTimeout(() => res.end(), 2_000)
      } else {
        res.writeHead(req.url === "/fail" ? 500 : 200)
        res.end("x".repeat(100_000))
      }
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((done) => server.close(() => done()))
})

const body = '{"eventId":"evt_o1_0_1","data":{"description":"Café"}}'

describe("postWebhook", () => {
  it("2xx: delivered; the exact body bytes, JSON content type and the given headers arrive", async () => {
    const result = await postWebhook(`http://127.0.0.1:${port}/ok`, body, { "x-webhook-id": "evt_o1_0_1" }, 2_000, true)
    assert.deepInclude(result, { httpStatus: 200, error: null })
    const hit = hits.find((h) => h.path === "/ok")!
    assert.strictEqual(hit.body, body)
    assert.strictEqual(hit.headers["content-type"], "application/json")
    assert.strictEqual(hit.headers["content-length"], String(Buffer.byteLength(body)))
    assert.strictEqual(hit.headers["x-webhook-id"], "evt_o1_0_1")
  })

  it("a host name connects through the pinned lookup (the address checked), keeping the name in Host", async () => {
    const [first] = await lookup("localhost", { all: true, verbatim: true })
    if (first?.address !== "127.0.0.1") {
      process.stderr.write(
        `\n*** SKIPPED (localhost resolves first to ${first?.address}, not 127.0.0.1): pinned lookup\n`
      )
      return
    }
    const result = await postWebhook(`http://localhost:${port}/named`, body, {}, 2_000, true)
    assert.deepInclude(result, { httpStatus: 200, error: null })
    assert.strictEqual(hits.find((h) => h.path === "/named")!.headers.host, `localhost:${port}`)
  })

  it("a non-2xx answer is a failed attempt naming the status", async () => {
    assert.deepInclude(await postWebhook(`http://127.0.0.1:${port}/fail`, body, {}, 2_000, true), {
      httpStatus: 500,
      error: "HTTP 500"
    })
  })

  it("a redirect is not followed", async () => {
    const result = await postWebhook(`http://127.0.0.1:${port}/redirect`, body, {}, 2_000, true)
    assert.deepInclude(result, { httpStatus: 302, error: "HTTP 302" })
    assert.isFalse(hits.some((h) => h.path === "/target"))
  })

  it("a receiver slower than the timeout: no status, a timeout error, bounded duration", async () => {
    const result = await postWebhook(`http://127.0.0.1:${port}/slow`, body, {}, 300, true)
    assert.isNull(result.httpStatus)
    assert.match(result.error!, /timeout/)
    assert.isBelow(result.durationMs, 1_500)
  })

  it("without the allowance: loopback literals and names resolving to loopback are refused before connecting", async () => {
    const before = hits.length
    for (const url of [
      `http://127.0.0.1:${port}/guard`,
      `http://[::ffff:127.0.0.1]:${port}/guard`,
      `http://localhost:${port}/guard`
    ]) {
      const result = await postWebhook(url, body, {}, 2_000, false)
      assert.isNull(result.httpStatus, url)
      // C19 §6: the history never shows the resolved address, nor its range.
      assert.strictEqual(result.error, "destination refused", url)
    }
    assert.strictEqual(hits.length, before, "nothing reached the server")
  })
})
