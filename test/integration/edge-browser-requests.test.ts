/**
 * Browser requests (CONTRACT C19 §3), over real HTTP, sent header for header as a browser would. The
 * issue's two attacks from a page on another site — a plain HTML form POST to apply_code paying an
 * invoice, and a fetch with no Content-Type to pay_internal paying a payment order, both carrying the
 * victim's `sid` cookie — are refused and move nothing. Then the rules one by one: the media type
 * (415 10407, before any other rule), the origin (403 10406 for a `sid` request from another site; the
 * service's own origin, ALLOWED_ORIGINS, and requests without the headers pass), and the headers every
 * answer carries (Cache-Control: no-store, X-Content-Type-Options: nosniff).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Party } from "../support/Client.ts"
import { raw } from "../support/Edge.ts"
import { assertRejected, errorCode, qs, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf, type App } from "../support/Merchant.ts"

const PARTNER = "https://wallet-ui.example"
const EVIL = "https://evil.example"

const { service, client } = serviceForFile({
  env: { ALLOWED_ORIGINS: `${PARTNER}, http://localhost:3000` }
})
const shop = merchantOf(client)
const base = () => service().base
let nonce = Date.now()

let merchant: Party
let app: App
const setup = async () => {
  if (merchant !== undefined) return
  ;({ merchant, app } = await shop.open("Tea House"))
}

/** A fresh invoice (type 13) of 10 USDT by the merchant, and a funded payer. */
const invoice = async () => {
  await setup()
  const created = await client.call("POST", "/core/v1/create_tx_code", {
    sid: merchant.sid,
    body: { currency: "USDT", amount: 10, typeTx: 13 }
  })
  assert.strictEqual(created.status, 200, JSON.stringify(created.body))
  return { code: created.body.result.code as string, payer: await client.party({ fund: "100" }) }
}

const applyPath = (code: string) => `/core/v1/apply_code?${qs({ code, amount: 10, client_nonce: nonce++ })}`

/** A fresh payment order of 10 USDT and a funded payer. */
const order = async () => {
  await setup()
  const put = await shop.put(app, { orderAmount: "10" })
  return { code: put.code as string, id: put.id as string, payer: await client.party({ fund: "100" }) }
}
const payPath = (code: string) => `/payment/v1/pay_internal?code=${encodeURIComponent(code)}`

/** Headers of a request a page on another site makes with the victim's cookie. */
const crossSite = (sid: string) => ({ cookie: `sid=${sid}`, origin: EVIL, "sec-fetch-site": "cross-site" })

describe("the issue's attacks from another site move nothing", () => {
  it("a plain HTML form POST to apply_code with the sid cookie: 415 10407, the invoice stays unpaid", async () => {
    const { code, payer } = await invoice()
    const before = { payer: await client.bucketsOf(payer), merchant: await client.bucketsOf(merchant) }
    const reply = await raw(base(), applyPath(code), {
      method: "POST",
      headers: { ...crossSite(payer.sid), "content-type": "application/x-www-form-urlencoded" },
      body: "amount=10"
    })
    assertRejected(reply, 415, errorCode.UnsupportedMediaType, "form POST", "Content-Type")
    assert.deepStrictEqual(await client.bucketsOf(payer), before.payer)
    assert.deepStrictEqual(await client.bucketsOf(merchant), before.merchant)
    // An empty form (no fields) still names its Content-Type.
    const empty = await raw(base(), applyPath(code), {
      method: "POST",
      headers: { ...crossSite(payer.sid), "content-type": "application/x-www-form-urlencoded" }
    })
    assertRejected(empty, 415, errorCode.UnsupportedMediaType, "empty form")
    assert.deepStrictEqual(await client.bucketsOf(payer), before.payer)
    const info = await client.call("GET", `/core/v1/wallet/get_tx_info?code=${code}`, { sid: merchant.sid })
    assert.strictEqual(info.body.result.state, "InvoiceCreated", JSON.stringify(info.body))
  })

  it("a fetch with no Content-Type to pay_internal with the sid cookie and a foreign Origin: 415 10407, the order stays open", async () => {
    const { code, id, payer } = await order()
    const before = await client.bucketsOf(payer)
    const reply = await raw(base(), payPath(code), { method: "POST", headers: crossSite(payer.sid), body: "{}" })
    assertRejected(reply, 415, errorCode.UnsupportedMediaType, "no Content-Type")
    // The same fetch naming application/json (a CORS preflight a browser would send first aside) meets the origin rule.
    const json = await raw(base(), payPath(code), {
      method: "POST",
      headers: { ...crossSite(payer.sid), "content-type": "application/json" },
      body: "{}"
    })
    assertRejected(json, 403, errorCode.CrossSiteRequest, "JSON from another site")
    assert.deepStrictEqual(await client.bucketsOf(payer), before)
    assert.strictEqual((await shop.order(app, id)).state, "Created")
  })
})

describe("media type (415 10407, checked before any other rule)", () => {
  it("a body or a named Content-Type must be application/json; parameters and case are fine", async () => {
    const post = (headers: Record<string, string>, body?: string) =>
      raw(base(), "/private/v1/create_wallet", {
        method: "POST",
        headers: { authorization: `Bearer ${service().key}`, ...headers },
        body
      })
    const json = JSON.stringify({ clientId: "7100001" })
    for (const type of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "multipart/form-data; boundary=x",
      "application/jsonx"
    ])
      assertRejected(await post({ "content-type": type }, json), 415, errorCode.UnsupportedMediaType, type)
    assertRejected(await post({}, json), 415, errorCode.UnsupportedMediaType, "a body without Content-Type")
    for (const type of ["application/json", "application/json; charset=utf-8", "Application/JSON"]) {
      const reply = await post({ "content-type": type }, json)
      assert.strictEqual(reply.status, 200, `${type}: ${JSON.stringify(reply.body)}`)
    }
    // Before any other rule: no credential at all, and a bad body, still 415.
    const anonymous = await raw(base(), "/private/v1/create_wallet", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{oops"
    })
    assertRejected(anonymous, 415, errorCode.UnsupportedMediaType, "before 401")
    // No body and no Content-Type: judged by the other rules (cancel_code takes its input in the query).
    const cancel = await raw(base(), "/core/v1/cancel_code?code=nothing", { method: "POST" })
    assertRejected(cancel, 401, errorCode.Unauthorized, "no body, no type")
  })
})

describe("origin (403 10406 for a request with the sid cookie from another site)", () => {
  it("refused: a foreign or null Origin, Sec-Fetch-Site cross-site or same-site; nothing moves", async () => {
    const { code, id, payer } = await order()
    const before = await client.bucketsOf(payer)
    for (const headers of <Array<Record<string, string>>>[
      { origin: EVIL },
      { origin: "null" },
      { origin: base().replace("127.0.0.1", "localhost") },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: base(), "sec-fetch-site": "cross-site" }
    ]) {
      const reply = await client.call("POST", payPath(code), { sid: payer.sid, body: {}, headers })
      assertRejected(reply, 403, errorCode.CrossSiteRequest, JSON.stringify(headers))
    }
    assert.deepStrictEqual(await client.bucketsOf(payer), before)
    assert.strictEqual((await shop.order(app, id)).state, "Created")
  })

  it("accepted: the service's own origin (PUBLIC_BASE_URL), each of ALLOWED_ORIGINS, and no browser headers", async () => {
    for (const headers of <Array<Record<string, string>>>[
      { origin: base(), "sec-fetch-site": "same-origin" },
      { origin: PARTNER },
      { origin: "http://localhost:3000", "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "none" },
      {}
    ]) {
      const { code, id, payer } = await order()
      const reply = await client.call("POST", payPath(code), { sid: payer.sid, body: {}, headers })
      assert.strictEqual(reply.status, 200, `${JSON.stringify(headers)}: ${JSON.stringify(reply.body)}`)
      assert.strictEqual((await shop.order(app, id)).state, "Paid")
    }
  })

  it("only requests carrying the sid cookie are judged by origin, and GET is never refused", async () => {
    await setup()
    const read = await client.call("GET", "/core/v1/wallet/get_balance", {
      sid: merchant.sid,
      headers: { origin: EVIL, "sec-fetch-site": "cross-site" }
    })
    assert.strictEqual(read.status, 200, JSON.stringify(read.body))
    // A merchant's server (pkey, no cookie) naming any Origin is judged by its key.
    const put = await client.call("POST", `/payorders/v1/put_payment_order?app_id=${app.appId}`, {
      pkey: app.pkey,
      body: { currency: "USDT", orderAmount: "1", externalId: `origin-${nonce++}` },
      headers: { origin: EVIL, "sec-fetch-site": "cross-site" }
    })
    assert.strictEqual(put.status, 200, JSON.stringify(put.body))
    // A cookie whose name merely ends in "sid" is not the session cookie.
    const other = await client.call("POST", `/payorders/v1/put_payment_order?app_id=${app.appId}`, {
      pkey: app.pkey,
      body: { currency: "USDT", orderAmount: "1", externalId: `origin-${nonce++}` },
      headers: { origin: EVIL, cookie: "xsid=1" }
    })
    assert.strictEqual(other.status, 200, JSON.stringify(other.body))
  })

  it("an ALLOWED_ORIGINS item that is not an origin stops the start", async () => {
    const { startFailing } = await import("../support/Edge.ts")
    const { exitCode, output } = await startFailing({ ALLOWED_ORIGINS: "https://ok.example,https://shop.example/path" })
    assert.notStrictEqual(exitCode, 0, output)
    assert.include(output, "ALLOWED_ORIGINS: item 2", output)
  }, 150_000)
})

describe("every answer is no-store and nosniff", () => {
  it("success, refusals, unknown routes, the get_info fast path; the pay page's assets keep their own caching", async () => {
    await setup()
    const replies = [
      await client.call("GET", "/core/v1/get_info"),
      await client.call("GET", "/core/v1/wallet/get_balance", { sid: merchant.sid }),
      await client.call("GET", "/core/v1/wallet/get_balance"),
      await client.call("GET", "/core/v1/no_such_action"),
      await client.priv("POST", "create_wallet", {}),
      await raw(base(), "/private/v1/create_wallet", { method: "POST", headers: { "content-type": "text/plain" } }),
      await client.call("GET", "/core/openapi.json")
    ]
    for (const reply of replies) {
      assert.strictEqual(
        reply.headers.get("cache-control"),
        "no-store",
        `${reply.status} ${JSON.stringify(reply.body).slice(0, 100)}`
      )
      assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff", String(reply.status))
    }
    const asset = await fetch(base() + "/pay/pay.js")
    assert.strictEqual(asset.status, 200)
    assert.strictEqual(asset.headers.get("x-content-type-options"), "nosniff")
    assert.notStrictEqual(asset.headers.get("cache-control"), null)
  })
})
