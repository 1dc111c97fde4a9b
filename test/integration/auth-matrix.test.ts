/**
 * The auth matrix (SPEC "Authentication", CONTRACT C2): every route of every area refuses a missing,
 * forged, wrong-kind and other-owner credential, the public `get_info` and the payment gate
 * excepted. The route list is read from the served OpenAPI document, so a route added tomorrow is
 * covered without touching this file; each route is classified by its path prefix, every request
 * is made over real HTTP against the real service, and each check walks all routes and reports
 * every offending route at once.
 */
import { createHash, randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { isEnvelope, type Reply } from "../support/Client.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { withDatabase } from "../support/Postgres.ts"
import { itWithServer } from "../support/Service.ts"

type Kind = "public" | "session" | "merchant" | "service"

interface Route {
  readonly method: string
  readonly path: string
  readonly kind: Kind
  readonly operation: any
}

/** Credentials as they travel: cookie `sid`, header `pkey` (+ query app_id), `Authorization`, or anything raw. */
interface Credential {
  readonly label: string
  readonly sid?: string
  readonly bearer?: string
  readonly pkey?: string
  readonly appId?: string
  readonly headers?: Record<string, string>
}

/** SPEC "Authentication" by base path. `pay_internal` is the gate's one action that needs a session. */
const kindOf = (path: string): Kind | undefined =>
  path === "/core/v1/get_info"
    ? "public"
    : path === "/payment/v1/pay_internal"
      ? "session"
      : path.startsWith("/payment/v1/")
        ? "public"
        : path.startsWith("/core/v1/")
          ? "session"
          : path.startsWith("/payorders/v1/")
            ? "merchant"
            : path.startsWith("/private/v1/")
              ? "service"
              : undefined

/** The security scheme each kind must declare in the document. */
const declaredScheme: Record<Kind, string | undefined> = {
  public: undefined,
  session: "sid",
  merchant: "pkey",
  service: "bearer"
}

const forged = () => randomBytes(32).toString("base64url")

let routes: ReadonlyArray<Route>
let unclassified: ReadonlyArray<string>
let walletA: string
let walletB: string
let sidA: string
let sidB: string
let appA: { appId: string; pkey: string }
let appB: { appId: string; pkey: string }

const createApp = async (walletId: string, name: string) => {
  const reply = await client.priv("POST", "create_app", { walletId, name })
  if (reply.status !== 200) throw new Error(`create_app: ${JSON.stringify(reply.body)}`)
  return reply.body.result as { appId: string; pkey: string }
}

const { service, client } = serviceForFile({
  setup: async (client) => {
    const document = (await (await fetch(service().base + "/core/openapi.json")).json()) as any
    const found: Array<Route> = []
    const strays: Array<string> = []
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!["get", "post", "put", "patch", "delete"].includes(method)) continue
        const kind = kindOf(path)
        if (kind === undefined) strays.push(`${method.toUpperCase()} ${path}`)
        else found.push({ method: method.toUpperCase(), path, kind, operation })
      }
    }
    routes = found
    unclassified = strays
    walletA = (await client.createWallet("880001", { name: "A" })).id
    walletB = (await client.createWallet("880002", { name: "B" })).id
    sidA = await client.createSession(walletA)
    sidB = await client.createSession(walletB)
    appA = await createApp(walletA, "Shop A")
    appB = await createApp(walletB, "Shop B")
  }
})

const ofKind = (...kinds: ReadonlyArray<Kind>) => routes.filter((route) => kinds.includes(route.kind))

type BodyVariant = "json" | "malformed"

/**
 * The sweeps send thousands of requests as fast as they go, most with no valid credential. From one
 * address that is a key-guessing flood, which C19 §8 limits (429 10408 past RATE_LIMIT_IP_RPS, burst
 * twice that); this matrix stands for many callers, not one attacker, so every 100 requests leave from
 * the next loopback address (the limit itself: edge-rate-limits.test.ts).
 */
let sent = 0
const nextAddress = () => {
  const block = Math.floor(sent++ / 100)
  return `127.1.${block % 256}.${Math.floor(block / 256) + 1}`
}

/** One request to a route: path parameters filled, merchant app_id added, POST bodies sent as asked. */
const send = (route: Route, credential: Credential, body: BodyVariant = "json"): Promise<Reply> => {
  let path = route.path.replace(/\{[^}]+\}/g, "1")
  if (credential.appId !== undefined) path += `?app_id=${encodeURIComponent(credential.appId)}`
  // A long-poll answers at once (C8 timeout=0) instead of holding the sweep for its idle wait.
  if (/\/wait_[a-z_]+$/.test(route.path)) path += `${path.includes("?") ? "&" : "?"}timeout=0`
  const hasBody = route.method !== "GET" && route.method !== "DELETE"
  return client.call(route.method, path, {
    from: nextAddress(),
    sid: credential.sid,
    bearer: credential.bearer,
    pkey: credential.pkey,
    headers: credential.headers,
    ...(hasBody ? (body === "json" ? { body: {} } : { raw: "{not json" }) : {})
  })
}

const describeReply = (reply: Reply) => `${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`

/**
 * Sends every credential to every route (POST routes twice: a valid JSON body and malformed JSON,
 * since authentication must come before the body matters) and collects each reply that is not the
 * expected error envelope.
 */
const expectRefused = async (
  targets: ReadonlyArray<Route>,
  credentialsFor: (route: Route) => ReadonlyArray<Credential>,
  status: number,
  code: number
) => {
  const problems: Array<string> = []
  let checked = 0
  for (const route of targets) {
    const variants: ReadonlyArray<BodyVariant> = route.method === "GET" ? ["json"] : ["json", "malformed"]
    for (const credential of credentialsFor(route)) {
      for (const variant of variants) {
        const reply = await send(route, credential, variant)
        checked++
        const ok =
          reply.status === status &&
          isEnvelope(reply.body) &&
          reply.body.result === null &&
          reply.body.error?.code === code
        if (!ok)
          problems.push(
            `${route.method} ${route.path} [${credential.label}${variant === "malformed" ? ", malformed body" : ""}]: ${describeReply(reply)}`
          )
      }
    }
  }
  assert.deepStrictEqual(problems, [])
  return checked
}

/** The right credential for a route of that kind (app A's key with app A's id for merchant routes). */
const rightCredential = (route: Route, sid = sidA): Credential =>
  route.kind === "session"
    ? { label: "valid sid", sid }
    : route.kind === "merchant"
      ? { label: "valid pkey", pkey: appA.pkey, appId: appA.appId }
      : route.kind === "service"
        ? { label: "valid bearer", bearer: service().key }
        : { label: "none" }

describe("the route list comes from the OpenAPI document", () => {
  it("every documented route falls in a known area and declares that area's credential", () => {
    assert.deepStrictEqual(unclassified, [], "routes outside every known area: classify them here")
    for (const kind of ["public", "session", "merchant", "service"] as const) {
      assert.isAbove(ofKind(kind).length, 0, `no ${kind} route found in the document`)
    }
    // A few routes the document must carry, so an empty or truncated document cannot pass vacuously.
    const listed = new Set(routes.map((route) => `${route.method} ${route.path}`))
    for (const route of [
      "GET /core/v1/get_info",
      "GET /core/v1/wallet/get_balance",
      "GET /payorders/v1/get_app_payments",
      "GET /payment/v1/get_terminals",
      "POST /private/v1/create_wallet"
    ]) {
      assert.isTrue(listed.has(route), route)
    }
    const mismatched: Array<string> = []
    for (const route of routes) {
      const schemes = (route.operation.security ?? []).flatMap((requirement: Record<string, unknown>) =>
        Object.keys(requirement)
      )
      const expected = declaredScheme[route.kind]
      const ok = expected === undefined ? schemes.length === 0 : schemes.length === 1 && schemes[0] === expected
      if (!ok) mismatched.push(`${route.method} ${route.path}: ${route.kind} route declares ${JSON.stringify(schemes)}`)
    }
    assert.deepStrictEqual(mismatched, [])
  })

  it("no session route lets the caller name the acting wallet: the session is the identity", () => {
    const offending = ofKind("session").flatMap((route) =>
      (route.operation.parameters ?? [])
        .filter((parameter: any) => /^wallet_?id$/i.test(parameter.name))
        .map((parameter: any) => `${route.method} ${route.path} ?${parameter.name}`)
    )
    assert.deepStrictEqual(offending, [])
  })
})

describe("public routes", () => {
  it("answer without any credential, and garbage credentials do not get in their way", async () => {
    const problems: Array<string> = []
    for (const route of ofKind("public")) {
      const requiresInput =
        (route.operation.parameters ?? []).some((parameter: any) => parameter.required === true) ||
        route.method !== "GET"
      for (const credential of [
        { label: "none" },
        { label: "forged everything", sid: forged(), bearer: forged(), pkey: forged() }
      ]) {
        const reply = await send(route, credential)
        // A route that needs input (a code, a body) may reject it, but never for want of a credential.
        const ok =
          isEnvelope(reply.body) &&
          (requiresInput ? reply.status !== 401 && reply.status !== 403 : reply.status === 200)
        if (!ok) problems.push(`${route.method} ${route.path} [${credential.label}]: ${describeReply(reply)}`)
      }
    }
    assert.deepStrictEqual(problems, [])
    const info = await client.call("GET", "/core/v1/get_info")
    assert.strictEqual(info.status, 200)
    assert.strictEqual(info.body.result.status, "ok")
  })
})

describe("authenticated routes: the positive control", () => {
  it("the right credential gets past authentication on every route (so the refusals below mean something)", async () => {
    const problems: Array<string> = []
    for (const route of ofKind("session", "merchant", "service")) {
      const reply = await send(route, rightCredential(route))
      if (reply.status === 401 || reply.status === 403 || !isEnvelope(reply.body)) {
        problems.push(`${route.method} ${route.path}: ${describeReply(reply)}`)
      }
    }
    assert.deepStrictEqual(problems, [])
  })
})

describe("missing credential", () => {
  it("every non-public route answers 401 / 10401 with no credential, before looking at the body", async () => {
    const checked = await expectRefused(
      ofKind("session", "merchant", "service"),
      (route): ReadonlyArray<Credential> => [
        { label: "nothing", appId: route.kind === "merchant" ? appA.appId : undefined },
        // The credential's carrier is present but empty.
        route.kind === "session"
          ? { label: "empty sid cookie", headers: { cookie: "sid=" } }
          : route.kind === "merchant"
            ? { label: "empty pkey", headers: { pkey: "" }, appId: appA.appId }
            : { label: "empty bearer", headers: { authorization: "Bearer " } }
      ],
      401,
      10401
    )
    assert.isAbove(checked, 0)
  })

  it("a POST with no credential and an invalid body is 401, not 400", async () => {
    const posts = ofKind("session", "merchant", "service").filter((route) => route.method === "POST")
    assert.isAbove(posts.length, 0)
    await expectRefused(posts, () => [{ label: "nothing" }], 401, 10401)
  })
})

describe("forged credential", () => {
  it("a random credential of the right kind, a near miss of a real one, or an absurd one is 401 / 10401", async () => {
    await expectRefused(
      ofKind("session", "merchant", "service"),
      (route) => {
        const [real, carry]: [string, (value: string) => Credential] =
          route.kind === "session"
            ? [sidA, (value) => ({ label: "", sid: value })]
            : route.kind === "merchant"
              ? [appA.pkey, (value) => ({ label: "", pkey: value, appId: appA.appId })]
              : [service().key, (value) => ({ label: "", bearer: value })]
        return [
          { ...carry(forged()), label: "random" },
          { ...carry(real + "x"), label: "real plus a character" },
          { ...carry(real.slice(0, -1)), label: "real minus its last character" },
          { ...carry(real.slice(0, 16)), label: "a prefix of the real one" },
          {
            ...carry(real.toUpperCase() === real ? real.toLowerCase() : real.toUpperCase()),
            label: "real in other case"
          },
          { ...carry("a".repeat(10_000)), label: "10 000 characters" },
          { ...carry("' OR 1=1 --"), label: "SQL-looking" }
        ]
      },
      401,
      10401
    )
  })

  it("the right secret in the wrong carrier is 401 / 10401", async () => {
    await expectRefused(
      ofKind("session", "merchant", "service"),
      (route): ReadonlyArray<Credential> =>
        route.kind === "session"
          ? [
              { label: "sid as a header", headers: { sid: sidA } },
              { label: "sid in another cookie", headers: { cookie: `session=${sidA}` } },
              { label: "sid as a bearer", bearer: sidA }
            ]
          : route.kind === "merchant"
            ? [
                { label: "pkey as a cookie", headers: { cookie: `pkey=${appA.pkey}` }, appId: appA.appId },
                { label: "pkey as a bearer", bearer: appA.pkey, appId: appA.appId }
              ]
            : [
                { label: "service key without the Bearer scheme", headers: { authorization: service().key } },
                { label: "service key as Basic", headers: { authorization: `Basic ${service().key}` } },
                { label: "service key as a header", headers: { "x-service-key": service().key } }
              ],
      401,
      10401
    )
  })
})

describe("wrong kind of credential", () => {
  it("a valid credential of another kind is 401 / 10401 on every route", async () => {
    await expectRefused(
      ofKind("session", "merchant", "service"),
      (route): ReadonlyArray<Credential> =>
        route.kind === "session"
          ? [
              { label: "valid service bearer", bearer: service().key },
              { label: "valid merchant pkey", pkey: appA.pkey, appId: appA.appId },
              { label: "service key as sid", sid: service().key },
              { label: "merchant pkey as sid", sid: appA.pkey }
            ]
          : route.kind === "merchant"
            ? [
                { label: "valid sid", sid: sidA, appId: appA.appId },
                { label: "valid service bearer", bearer: service().key, appId: appA.appId },
                { label: "sid as pkey", pkey: sidA, appId: appA.appId },
                { label: "service key as pkey", pkey: service().key, appId: appA.appId }
              ]
            : [
                { label: "valid sid", sid: sidA },
                { label: "valid merchant pkey", pkey: appA.pkey },
                { label: "sid as bearer", bearer: sidA },
                { label: "merchant pkey as bearer", bearer: appA.pkey }
              ],
      401,
      10401
    )
  })
})

describe("other owner", () => {
  it("a merchant key with another app's app_id is 403 / 10403 on every merchant route", async () => {
    await expectRefused(
      ofKind("merchant"),
      () => [
        { label: "key of A, app of B", pkey: appA.pkey, appId: appB.appId },
        { label: "key of B, app of A", pkey: appB.pkey, appId: appA.appId },
        { label: "key of A, an app that does not exist", pkey: appA.pkey, appId: "999999999" }
      ],
      403,
      10403
    )
    // Each key still works for its own app.
    for (const app of [appA, appB]) {
      const reply = await client.call("GET", `/payorders/v1/get_app_payments?app_id=${app.appId}`, { pkey: app.pkey })
      assert.strictEqual(reply.status, 200)
    }
  })

  it("a session sees its own wallet only", async () => {
    await client.fund(walletA, "USDT", "7")
    await client.fund(walletB, "USDT", "3")
    assert.strictEqual((await client.balance(sidA, "USDT")).freeBalance, 7)
    assert.strictEqual((await client.balance(sidB, "USDT")).freeBalance, 3)
    const info = await client.call("GET", "/core/v1/wallet/get_info", { sid: sidB })
    assert.strictEqual(info.status, 200)
    assert.strictEqual(info.body.result.wallet.id, walletB)
    assert.isFalse(info.body.result.siblings.some((wallet: any) => wallet.id === walletA))
  })

  it("an investment id that is not the session wallet's is 404 / 10156 (C17, was 10404), never the data", async () => {
    const missing = await client.call("GET", "/core/v1/invest/get_investment_info?investment_id=1700000000000000001", {
      sid: sidA
    })
    assert.strictEqual(missing.status, 404)
    assert.strictEqual(missing.body.error?.code, 10156)
    assert.isNull(missing.body.result)
  })

  // The investment is written straight into the database: no API creates one yet, and the
  // embedded database is private to the service process, so this runs on a real server only.
  itWithServer("another wallet's investment is 404 exactly like a missing one; its owner sees it", async () => {
    const timetick = "1700000000000000777"
    await withDatabase(
      service().databaseUrl!,
      (sql) =>
        sql`INSERT INTO investments (timetick, wallet_id, currency, investment_type, state, amount, rate_pct, date_end)
          VALUES (${timetick}, ${walletA}, 'USDT', 1, 1, 4321000000, 5, now() + interval '30 days')`
    )
    const stranger = await client.call("GET", `/core/v1/invest/get_investment_info?investment_id=${timetick}`, {
      sid: sidB
    })
    assert.strictEqual(stranger.status, 404)
    assert.strictEqual(stranger.body.error?.code, 10156)
    assert.isNull(stranger.body.result)
    assert.notInclude(JSON.stringify(stranger.body), "4321")
    const owner = await client.call("GET", `/core/v1/invest/get_investment_info?investment_id=${timetick}`, {
      sid: sidA
    })
    assert.strictEqual(owner.status, 200)
    assert.strictEqual(owner.body.result.timetick, timetick)
    assert.strictEqual(owner.body.result.amount, 4321)
    const list = await client.call("GET", "/core/v1/invest/get_investments", { sid: sidB })
    assert.isFalse((list.body.result as Array<any>).some((row) => row.timetick === timetick))
  })
})

describe("sessions that no longer hold", () => {
  it("an ended session is 401 / 10401 on every session route; other sessions of the wallet live on", async () => {
    const doomed = await client.createSession(walletA)
    const sibling = await client.createSession(walletA)
    assert.strictEqual((await client.call("GET", "/core/v1/wallet/get_balance", { sid: doomed })).status, 200)
    const end = await client.priv("POST", "end_session", { sid: doomed })
    assert.strictEqual(end.status, 200)
    assert.isTrue(end.body.result.ended)
    await expectRefused(ofKind("session"), () => [{ label: "ended sid", sid: doomed }], 401, 10401)
    assert.strictEqual((await client.call("GET", "/core/v1/wallet/get_balance", { sid: sibling })).status, 200)
    // Ending it again, or ending something that never was a session, ends nothing.
    assert.isFalse((await client.priv("POST", "end_session", { sid: doomed })).body.result.ended)
    assert.isFalse((await client.priv("POST", "end_session", { sid: forged() })).body.result.ended)
  })

  // create_session's ttlSeconds is at least 60, so waiting for expiry is too slow; on a real server
  // the test moves the session's expiry into the past instead.
  itWithServer("an expired session is 401 / 10401 on every session route", async () => {
    const expiring = await client.createSession(walletA)
    assert.strictEqual((await client.call("GET", "/core/v1/wallet/get_balance", { sid: expiring })).status, 200)
    const hash = createHash("sha256").update(expiring, "utf8").digest()
    const updated = await withDatabase(
      service().databaseUrl!,
      (sql) =>
        sql`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE sid_hash = ${hash} RETURNING wallet_id`
    )
    assert.strictEqual(updated.length, 1)
    // A change made in SQL reaches the process with its notification (DESIGN "Caches that every
    // process drops at once": milliseconds, and a cached session lives at most a second), not before
    // the next request: wait for it, then check every route.
    const deadline = Date.now() + 2_000
    while (
      (await client.call("GET", "/core/v1/wallet/get_balance", { sid: expiring })).status === 200 &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 20))
    }
    await expectRefused(ofKind("session"), () => [{ label: "expired sid", sid: expiring }], 401, 10401)
  })
})
