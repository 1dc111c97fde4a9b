/**
 * Two deployments federating over HTTP for the federation-*.test.ts files (CONTRACT C18): each is a real
 * service process with its own database. `link` makes `home` a partner of `away`'s: a float wallet and a
 * merchant app on `away` (away's operator funds it), and on `home` a partner record holding that app's
 * credentials and webhook secret. Webhooks are signed here as C16 does (the partner app's secret), for
 * the replayed, forged and stale cases.
 */
import { assert } from "@effect/vitest"
import { createHmac } from "node:crypto"
import type { Party, Reply, TestClient } from "./Client.ts"
import { type App, merchantOf } from "./Merchant.ts"
import type { RunningService } from "./Service.ts"

export const federationEnv = (extra: Record<string, string> = {}) => ({
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true",
  // C19 §6: the partners of a test talk plain http on loopback.
  FEDERATION_ALLOW_HTTP: "true",
  WEBHOOK_RETRY_BASE_SECONDS: "1",
  WEBHOOK_RETRY_MAX_DELAY_SECONDS: "2",
  WEBHOOK_MAX_ATTEMPTS: "3",
  WEBHOOK_TIMEOUT_SECONDS: "3",
  FEDERATION_HTTP_TIMEOUT_SECONDS: "3",
  ...extra
})

export const allCapabilities = ["Federation", "FederationWallet", "FederationChat"]

export interface Link {
  /** The partner id `home` knows `away` by. */
  readonly partnerId: string
  /** home's float wallet on away, and home's merchant app there. */
  readonly float: Party
  readonly app: App & { readonly webhookSecret: string }
}

export const sign = (secret: string, timestamp: number, raw: string) =>
  `v1=${createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestamp}.${raw}`, "utf8").digest("hex")}`

let nextEvent = 0

export const federationOf = (home: TestClient, away: TestClient, awayService: () => RunningService) => {
  const mAway = merchantOf(away)
  const link = async (partnerId: string, floatFunds = "1000", extra: Record<string, unknown> = {}): Promise<Link> => {
    const float = await away.party({ fund: floatFunds })
    const app = (await mAway.createApp(float.id, `Float of ${partnerId}`)) as Link["app"]
    const reply = await home.priv("POST", "add_federation_partner", {
      partnerId,
      name: `Partner ${partnerId}`,
      baseUrl: awayService().base,
      outboundAppId: app.appId,
      outboundPkey: app.pkey,
      webhookSecret: app.webhookSecret,
      capabilities: allCapabilities,
      ...extra
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return { partnerId, float, app }
  }
  const wallet = (path: string, sid: string, body?: unknown) =>
    home.call(body === undefined ? "GET" : "POST", `/core/v1/wallet/${path}`, { sid, body })
  const createOrder = (sid: string, body: Record<string, unknown>) => wallet("create_partner_order", sid, body)
  /** A payer on `away` pays the partner order's code from its wallet (the gate's pay_internal). */
  const payOnAway = async (code: string, payer: Party) => {
    const reply = await mAway.gate("POST", "pay_internal", code, {}, payer.sid)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result
  }
  /** A webhook as the partner would send it to home (signed with `secret`), posted raw. */
  const postHook = (
    partnerId: string,
    event: Record<string, unknown>,
    secret: string,
    options: { timestamp?: number; signature?: string; raw?: string } = {}
  ): Promise<Reply> => {
    const raw = options.raw ?? JSON.stringify(event)
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000)
    return home.call("POST", `/auth/v1/app/federation_webhook?partner=${encodeURIComponent(partnerId)}`, {
      raw,
      headers: {
        "x-webhook-id": String(event.eventId),
        "x-webhook-timestamp": String(timestamp),
        "x-webhook-signature": options.signature ?? sign(secret, timestamp, raw)
      }
    })
  }
  const event = (type: string, appId: string, data: Record<string, unknown>) => ({
    eventId: `evt_test_${process.pid}_${nextEvent++}`,
    type,
    createdAt: new Date().toISOString(),
    appId,
    data
  })
  /** Polls until `check` holds (default 20 s). */
  const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean, ms = 20_000): Promise<A> => {
    const until = Date.now() + ms
    for (;;) {
      const value = await read()
      if (check(value)) return value
      if (Date.now() > until) assert.fail(`not reached in ${ms} ms: ${JSON.stringify(value)}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  const txInfo = async (sid: string, id: string) => {
    const reply = await home.call("GET", `/core/v1/wallet/get_tx_info?id=${id}`, { sid })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result
  }
  /** home's transactions of a type for a wallet (its history). */
  const historyOf = async (sid: string, typeTx: number) => {
    const reply = await home.call("GET", "/core/v1/wallet/get_history_transactions?limit=100", { sid })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return (reply.body.result as Array<any>).filter((row) => row.typeTx === typeTx)
  }
  const free = async (who: Party, currency = "USDT") => (await home.bucketsOf(who, currency)).free
  return { link, wallet, createOrder, payOnAway, postHook, event, eventually, txInfo, historyOf, free, mAway }
}

/**
 * A partner behind a faulty network (the test's own relay in front of a real partner process): `mode`
 * decides per request. "pass" relays; "lose-answer" relays the request, lets the partner act, then drops
 * the connection (the caller cannot know the outcome); "drop" drops the request unseen; "hang" takes
 * the request and never answers (the caller's own deadline ends it); "down" refuses the connection (the
 * relay stops listening). `hold` relays one request and keeps its answer back until released.
 */
/**
 * redirect: a 307 to the same URL on the target, before it is reached; huge: the target's answer padded past
 * 1 MiB; malformed: the target acted, its answer's `result.state` replaced by a number (a valid envelope
 * whose order does not decode).
 */
export type RelayMode = "pass" | "lose-answer" | "drop" | "hang" | "redirect" | "huge" | "malformed"

export interface Held {
  /** The partner's answer (its body) once it acted; the caller has not received it yet. */
  readonly answer: Promise<string>
  /** Lets the answer go to the caller. */
  readonly release: () => void
}

export interface Relay {
  readonly base: string
  /** The mode of requests whose path contains `match` (else "pass"). */
  readonly set: (match: string, mode: RelayMode) => void
  /** The next request whose path contains `match` is relayed, its answer held until released. */
  readonly hold: (match: string) => Held
  readonly clear: () => void
  readonly down: () => Promise<void>
  readonly up: () => Promise<void>
  readonly close: () => Promise<void>
  readonly seen: Array<string>
}

/** An envelope whose result's `state` is a number (left as it is when it has no result). */
const malformedOf = (answered: string): string => {
  const envelope = JSON.parse(answered)
  if (envelope?.result !== null && typeof envelope?.result === "object") envelope.result.state = 42
  return JSON.stringify(envelope)
}

export const startRelay = async (target: () => string): Promise<Relay> => {
  const http = await import("node:http")
  const rules = new Map<string, RelayMode>()
  const holds = new Map<string, { readonly got: (text: string) => void; readonly released: Promise<void> }>()
  const seen: Array<string> = []
  const modeOf = (url: string): RelayMode => {
    for (const [match, mode] of rules) if (url.includes(match)) return mode
    return "pass"
  }
  const handler = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", async () => {
      const url = req.url ?? "/"
      seen.push(url)
      const mode = modeOf(url)
      if (mode === "drop") return req.socket.destroy()
      if (mode === "hang") return
      if (mode === "redirect") {
        res.writeHead(307, { location: target() + url })
        return res.end()
      }
      const held = [...holds.entries()].find(([match]) => url.includes(match))
      if (held !== undefined) holds.delete(held[0])
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === "string" && k !== "host" && k !== "content-length") headers[k] = v
      try {
        const answer = await fetch(target() + url, {
          method: req.method,
          headers,
          body: chunks.length === 0 ? undefined : Buffer.concat(chunks)
        })
        const answered = await answer.text()
        if (mode === "lose-answer") return req.socket.destroy()
        // Trailing whitespace keeps it one valid JSON envelope, 1 MiB + 1 KiB long.
        const text =
          mode === "huge" ? answered + " ".repeat(1_049_600) : mode === "malformed" ? malformedOf(answered) : answered
        if (held !== undefined) {
          held[1].got(text)
          await held[1].released
        }
        res.writeHead(answer.status, { "content-type": "application/json" })
        res.end(text)
      } catch {
        req.socket.destroy()
      }
    })
  }
  let server = http.createServer(handler)
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const port = (server.address() as import("node:net").AddressInfo).port
  const stop = () =>
    new Promise<void>((done) => {
      server.closeAllConnections()
      server.close(() => done())
    })
  return {
    base: `http://127.0.0.1:${port}`,
    set: (match, mode) => void rules.set(match, mode),
    hold: (match) => {
      let got: (text: string) => void = () => undefined
      let release: () => void = () => undefined
      const answer = new Promise<string>((done) => (got = done))
      const released = new Promise<void>((done) => (release = done))
      holds.set(match, { got, released })
      return { answer, release }
    },
    clear: () => rules.clear(),
    down: stop,
    up: async () => {
      server = http.createServer(handler)
      await new Promise<void>((done) => server.listen(port, "127.0.0.1", done))
    },
    close: () => (server.listening ? stop() : Promise.resolve()),
    seen
  }
}
