/**
 * The request deadline (CONTRACT C19 §7), over a raw socket against a service with
 * REQUEST_TIMEOUT_SECONDS=2: a request that has no answer by then — here one whose body never finishes
 * arriving, the slow client that used to hold its request open until Node's own 300 s timeout — gets
 * 503 10410; long-polls are not cut by it but end by their own `timeout` (C8). A value out of 1–600
 * stops the start. Nothing here moves money, so the file skips the ledger audit.
 */
import { assert, describe, it } from "@effect/vitest"
import net from "node:net"
import { startFailing } from "../support/Edge.ts"
import { errorCode, serviceForFile } from "../support/Fixtures.ts"

const { service, client } = serviceForFile({ env: { REQUEST_TIMEOUT_SECONDS: "2" }, audit: false })

/** Sends the head and the first bytes of a body that claims 100, never the rest: the status line and body, and when they came. */
const slowBody = (port: number, head: string) =>
  new Promise<{ millis: number; status: number; body: any }>((done, fail) => {
    const started = Date.now()
    const socket = net.connect(port, "127.0.0.1", () => socket.write(head + '{"clientId":'))
    let text = ""
    socket.on("data", (chunk) => {
      text += chunk
      const at = text.indexOf("\r\n\r\n")
      if (at < 0) return
      const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, at))?.[1] ?? -1)
      if (text.length - at - 4 < length) return
      socket.destroy()
      done({ millis: Date.now() - started, status: Number(text.split(" ")[1]), body: JSON.parse(text.slice(at + 4)) })
    })
    socket.on("error", fail)
    setTimeout(() => {
      socket.destroy()
      fail(new Error(`no answer in 20 s: ${text}`))
    }, 20_000)
  })

describe("REQUEST_TIMEOUT_SECONDS (2 here)", () => {
  it("a request whose body never completes is answered 503 10410 after the deadline", async () => {
    const port = Number(new URL(service().base).port)
    const answer = await slowBody(
      port,
      `POST /private/v1/create_wallet HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${service().key}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    assert.strictEqual(answer.status, 503, JSON.stringify(answer.body))
    assert.strictEqual(answer.body.error.code, errorCode.RequestTimeout)
    assert.isNull(answer.body.result)
    assert.isAtLeast(answer.millis, 1_900)
    // The service goes on answering.
    assert.strictEqual((await client.call("GET", "/core/v1/get_info")).status, 200)
  }, 60_000)

  it("long-polls end by their own timeout, past the deadline: wait_cursor 202 after 4 s", async () => {
    const cursor = (await client.priv("GET", "wait_cursor?timeout=0")).body.cursor as string
    const started = Date.now()
    const reply = await client.priv("GET", `wait_cursor?cursor=${cursor}&timeout=4`)
    assert.strictEqual(reply.status, 202, JSON.stringify(reply.body))
    assert.isAtLeast(Date.now() - started, 3_900)
  }, 60_000)

  it.each(["0", "601", "ten"])(
    "REQUEST_TIMEOUT_SECONDS=%s stops the start naming it",
    async (value) => {
      const { exitCode, output } = await startFailing({ REQUEST_TIMEOUT_SECONDS: value })
      assert.notStrictEqual(exitCode, 0, output)
      assert.include(output, "REQUEST_TIMEOUT_SECONDS", output)
    },
    150_000
  )
})
