/**
 * A merchant's webhook receiver for the payments-webhooks*.test.ts files: a node:http server that
 * records every request (headers, raw body bytes) and answers each path as the test decides, plus the
 * verification function of docs/WEBHOOKS.md, loaded from that very file.
 */
import { assert } from "@effect/vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { root } from "./Service.ts"

export interface Received {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly raw: Buffer
  readonly event: any
  readonly status: number
  readonly at: number
}

export interface Receiver {
  readonly port: number
  readonly url: (path: string) => string
  readonly received: Array<Received>
  /** What a path answers for a request (default 204). */
  readonly answer: (path: string, status: (event: any, nth: number) => number) => void
  readonly close: () => Promise<void>
  readonly on: (path: string) => Array<Received>
  /** Waits until `predicate` holds over what `path` received (default 20 s). */
  readonly waitFor: (
    path: string,
    predicate: (got: Array<Received>) => boolean,
    ms?: number
  ) => Promise<Array<Received>>
}

export const startReceiver = async (host = "127.0.0.1"): Promise<Receiver> => {
  const received: Array<Received> = []
  const answers = new Map<string, (event: any, nth: number) => number>()
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const raw = Buffer.concat(chunks)
      const path = (req.url ?? "/").split("?")[0]!
      let event: any = null
      try {
        event = JSON.parse(raw.toString("utf8"))
      } catch {
        /* recorded as is */
      }
      const nth = received.filter((r) => r.path === path && r.event?.eventId === event?.eventId).length + 1
      const status = (answers.get(path) ?? (() => 204))(event, nth)
      received.push({ path, headers: req.headers, raw, event, status, at: Date.now() })
      res.statusCode = status
      res.end(status >= 300 && status < 400 ? "" : "ok")
    })
  })
  await new Promise<void>((done) => server.listen(0, host, done))
  const port = (server.address() as AddressInfo).port
  const on = (path: string) => received.filter((r) => r.path === path)
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    answer: (path, status) => answers.set(path, status),
    close: () => new Promise<void>((done) => server.close(() => done())),
    on,
    waitFor: async (path, predicate, ms = 20_000) => {
      const until = Date.now() + ms
      for (;;) {
        const got = on(path)
        if (predicate(got)) return got
        if (Date.now() > until)
          assert.fail(
            `receiver ${path}: condition not met in ${ms} ms; got ${JSON.stringify(got.map((r) => [r.event?.type, r.status]))}`
          )
        await new Promise((r) => setTimeout(r, 100))
      }
    }
  }
}

export type Verify = (
  secret: string,
  headers: Record<string, unknown>,
  rawBody: Buffer | string,
  tolerance?: number
) => boolean

/** The `verifyWebhook` of docs/WEBHOOKS.md (its first ```js block), imported from a copy of that block. */
export const verifierFromDocs = async (): Promise<Verify> => {
  const docs = readFileSync(join(root, "docs/WEBHOOKS.md"), "utf8")
  const block = /```js\n([\s\S]*?)```/.exec(docs)
  assert.isNotNull(block, "docs/WEBHOOKS.md has a ```js verification block")
  const file = join(mkdtempSync(join(tmpdir(), "verify-webhook-")), "verify-webhook.mjs")
  writeFileSync(file, block![1]!)
  const module = await import(pathToFileURL(file).href)
  return module.verifyWebhook as Verify
}
