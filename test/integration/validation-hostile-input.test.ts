/**
 * Bad input never hangs or loops (CONTRACT C19 §7), fuzz style over real HTTP: every POST route of the
 * served document (with the credential its area takes) gets a string field holding U+0000, one holding a
 * lone surrogate, a member name holding U+0000 and JSON nested 100 deep; every GET route gets a query
 * parameter holding %00. Each must answer 400 10001 within 5 s, naming the field. Then the issue's own
 * case: a NUL in a payment order's description used to send the order actor into an endless restart and
 * the request never answered; now it is 400 naming body.description and no order exists. Well-formed
 * text (emoji as escaped surrogate pairs, 64 levels of nesting) still passes.
 */
import { assert, describe, it } from "@effect/vitest"
import { isEnvelope, type Reply } from "../support/Client.ts"
import { documentedRoutes, rawPolitely } from "../support/Edge.ts"
import { assertRejected, errorCode } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { validationFile } from "../support/Validation.ts"

let sid: string
let app: { appId: string; pkey: string }
// The sandbox checkout is among the raw routes tried (C19 §1: it exists only with ACQUIRER=sandbox).
const { service, client } = validationFile((made) => ({ sid, app } = made), { ACQUIRER: "sandbox" })

const credentialFor = (path: string): Record<string, string> =>
  path.startsWith("/private/v1/")
    ? { authorization: `Bearer ${service().key}` }
    : path.startsWith("/payorders/v1/")
      ? { pkey: app.pkey }
      : { cookie: `sid=${sid}` }

const targetOf = (path: string) =>
  path.replace(/\{[^}]+\}/g, "1") + (path.startsWith("/payorders/v1/") ? `?app_id=${app.appId}` : "")

const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels)

/** Bodies of JSON text as sent on the wire (escapes written out, so the server decodes them). */
const hostileBodies: ReadonlyArray<readonly [string, string, string]> = [
  ["a NUL in a string field", `{"name":"tea\\u0000pot","description":"x"}`, "body.name: must not contain U+0000"],
  ["a lone high surrogate", `{"description":"tea\\ud800pot"}`, "body.description: must not contain a lone surrogate"],
  ["a lone low surrogate in an array", `[{"tag":"\\udc00"}]`, "body[0].tag: must not contain a lone surrogate"],
  ["a NUL in a member name", `{"na\\u0000me":"x"}`, "body: a member name must not contain U+0000"],
  ["JSON nested 100 deep", deep(100), "body: JSON nested deeper than 64 levels"]
]

/** Hundreds of requests from one credential: a 429 is waited out (Retry-After), the limit keeps its default. */
const send = (method: string, path: string, body?: string) =>
  rawPolitely(service().base, path, {
    method,
    headers: { ...credentialFor(path), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body,
    timeoutMs: 5_000
  })

const judge = (label: string, reply: Reply, names: string, problems: Array<string>) => {
  const ok =
    reply.status === 400 &&
    isEnvelope(reply.body) &&
    reply.body.error?.code === errorCode.InvalidRequest &&
    String(reply.body.error?.message).startsWith(names)
  if (!ok) problems.push(`${label}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`)
}

describe("hostile strings and nesting into every route: 400 10001 naming the field, within 5 s", () => {
  it("every POST route: NUL, lone surrogates, a NUL member name, 100-deep JSON", async () => {
    const routes = (await documentedRoutes(service())).filter((route) => route.method === "POST")
    assert.isAbove(routes.length, 50)
    const problems: Array<string> = []
    for (const route of routes) {
      for (const [label, body, names] of hostileBodies) {
        const reply = await send("POST", targetOf(route.path), body)
        judge(`POST ${route.path} [${label}]`, reply, names, problems)
      }
    }
    assert.deepStrictEqual(problems, [])
  }, 300_000)

  it("every GET route: a query parameter holding %00", async () => {
    const routes = (await documentedRoutes(service())).filter((route) => route.method === "GET")
    assert.isAbove(routes.length, 40)
    const problems: Array<string> = []
    for (const route of routes) {
      const target = targetOf(route.path)
      const reply = await send("GET", `${target}${target.includes("?") ? "&" : "?"}cursor=1%002`)
      judge(`GET ${route.path}`, reply, "query.cursor: must not contain U+0000", problems)
    }
    assert.deepStrictEqual(problems, [])
  }, 300_000)

  it("the raw routes too: the federation and acquirer webhooks, the sandbox checkout", async () => {
    const problems: Array<string> = []
    for (const path of [
      "/auth/v1/app/federation_webhook?partner=B",
      "/payment/v1/acquiring_webhook",
      "/acquirer/v1/checkout/1"
    ]) {
      for (const [label, body, names] of hostileBodies)
        judge(`${path} [${label}]`, await send("POST", path, body), names, problems)
    }
    assert.deepStrictEqual(problems, [])
  })
})

describe("the issue's case: a NUL in a payment order's description", () => {
  it("put_payment_order answers 400 naming body.description at once, and no order exists", async () => {
    const shop = merchantOf(client)
    const externalId = `nul-${Date.now()}`
    const started = Date.now()
    const reply = await rawPolitely(service().base, `/payorders/v1/put_payment_order?app_id=${app.appId}`, {
      method: "POST",
      headers: { pkey: app.pkey, "content-type": "application/json" },
      body: `{"currency":"USDT","orderAmount":"10","externalId":"${externalId}","description":"tea\\u0000pot"}`,
      timeoutMs: 5_000
    })
    assertRejected(reply, 400, errorCode.InvalidRequest, "NUL description", "body.description")
    assert.isBelow(Date.now() - started, 5_000)
    const drained = await shop.drain(app, undefined)
    assert.isFalse(
      drained.rows.some((row) => row.externalId === externalId),
      "no order was created"
    )
    // The merchant's next order goes through.
    const next = await shop.put(app, { description: "tea pot" })
    assert.strictEqual(next.description, "tea pot")
  })
})

describe("well-formed text passes", () => {
  it("emoji written as escaped surrogate pairs and as UTF-8, and 64 levels of nesting, are not refused by the edge", async () => {
    const emoji = await send(
      "POST",
      "/private/v1/create_wallet",
      `{"clientId":"7300001","name":"tea \\ud83c\\udf75 \u{1F375}"}`
    )
    assert.strictEqual(emoji.status, 200, JSON.stringify(emoji.body))
    assert.strictEqual(emoji.body.result.name, "tea \u{1F375} \u{1F375}")
    // 64 levels is within the limit: the decoder judges it (the wrong shape), not the depth rule.
    const nested = await send("POST", "/private/v1/create_wallet", deep(64))
    assertRejected(nested, 400, errorCode.InvalidRequest, "64 deep")
    assert.notInclude(nested.body.error!.message, "nested deeper")
  })
})
