/**
 * The edge's pure parts (CONTRACT C19 §2, §3, §7, §8), one table line per case: the media-type and
 * origin rules, the `sid` cookie test, the JSON body and request-target scans, SERVICE_KEYS parsing,
 * client address keys, the routes the HttpApi definition marks credentialed or long-polling, and the
 * token buckets on a hand-driven clock (rate, burst, Retry-After, eviction, bounded size).
 */
import { assert, describe, it } from "@effect/vitest"
import { carriesSid, crossSiteProblem, mediaTypeProblem, routeClasses } from "../../src/http/EdgeRules.ts"
import { jsonBodyProblem, targetProblem } from "../../src/http/InputLimits.ts"
import { addressKey } from "../../src/http/RateLimits.ts"
import { parseServiceKeys } from "../../src/platform/ServiceKeys.ts"
import { sweepEveryMs, TokenBuckets } from "../../src/platform/TokenBuckets.ts"

describe("media type (415 10407)", () => {
  it.each([
    ["POST", {}, undefined],
    ["POST", { "content-length": "0" }, undefined],
    ["POST", { "content-length": "2" }, "Content-Type: a body must be sent as application/json"],
    ["POST", { "transfer-encoding": "chunked" }, "Content-Type: a body must be sent as application/json"],
    ["POST", { "content-type": "application/json" }, undefined],
    ["POST", { "content-type": "application/json; charset=utf-8", "content-length": "2" }, undefined],
    ["PUT", { "content-type": " APPLICATION/JSON ;x=y" }, undefined],
    ["PATCH", { "content-type": "text/plain", "content-length": "0" }, "Content-Type: must be application/json"],
    ["DELETE", { "content-type": "application/x-www-form-urlencoded" }, "Content-Type: must be application/json"],
    ["POST", { "content-type": "application/json-seq" }, "Content-Type: must be application/json"],
    ["GET", { "content-type": "text/plain", "content-length": "5" }, undefined]
  ] as const)("%s %j → %s", (method, headers, expected) => {
    assert.strictEqual(mediaTypeProblem(method, headers), expected)
  })
})

describe("origin (403 10406)", () => {
  const allowed = new Set(["https://pay.example", "https://ui.example"])
  it.each([
    ["POST", {}, false],
    ["POST", { origin: "https://evil.example" }, false],
    ["POST", { cookie: "sid=x" }, false],
    ["POST", { cookie: "sid=x", origin: "https://pay.example" }, false],
    ["POST", { cookie: "sid=x", origin: "https://ui.example", "sec-fetch-site": "same-origin" }, false],
    ["POST", { cookie: "sid=x", "sec-fetch-site": "none" }, false],
    ["POST", { cookie: "a=1; sid=x", origin: "https://evil.example" }, true],
    ["POST", { cookie: "sid=x", origin: "null" }, true],
    ["POST", { cookie: "sid=x", "sec-fetch-site": "same-site" }, true],
    ["POST", { cookie: "sid=x", "sec-fetch-site": "cross-site", origin: "https://pay.example" }, true],
    ["DELETE", { cookie: "sid=x", origin: "https://evil.example" }, true],
    ["GET", { cookie: "sid=x", origin: "https://evil.example", "sec-fetch-site": "cross-site" }, false],
    ["POST", { cookie: "xsid=1", origin: "https://evil.example" }, false]
  ] as const)("%s %j refused: %s", (method, headers, refused) => {
    assert.strictEqual(crossSiteProblem(method, headers, allowed) !== undefined, refused)
  })

  it.each([
    [undefined, false],
    ["sid=", true],
    ["a=1;sid=2", true],
    ["a=1; sid=2", true],
    ["mysid=2", false],
    ["mysid=2; sid=3", true],
    ["sidx=1", false]
  ] as const)("cookie %j carries sid: %s", (cookie, carries) => {
    assert.strictEqual(carriesSid(cookie), carries)
  })
})

describe("JSON bodies and request targets (400 10001)", () => {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n)
  it.each([
    ['{"a":"b"}', undefined],
    [deep(64), undefined],
    [deep(65), "body: JSON nested deeper than 64 levels"],
    [`{"a":"${"[".repeat(100)}"}`, undefined],
    ['{"a":"x\\u0000"}', "body.a: must not contain U+0000 (NUL)"],
    ['{"a":"x\\\\u0000"}', undefined],
    ['[{"b":[1,"\\ud800"]}]', "body[0].b[1]: must not contain a lone surrogate (text must be well-formed UTF-16)"],
    ['{"a":"\\udc00\\ud800"}', "body.a: must not contain a lone surrogate (text must be well-formed UTF-16)"],
    ['{"a":"\\ud83c\\udf75"}', undefined],
    ['{"a":"\u{1F375}"}', undefined],
    ['{"k\\u0000":1}', "body: a member name must not contain U+0000 (NUL)"],
    ['{"a":"x\u0000"}', "body: must not contain U+0000 (NUL)"],
    ["{oops", undefined]
  ] as const)("%s → %s", (text, expected) => {
    assert.strictEqual(jsonBodyProblem(text), expected)
  })

  it.each([
    ["/core/v1/x?a=1", undefined],
    ["/core/v1/x?a=1%002", "query.a: must not contain U+0000 (NUL)"],
    ["/core/v1/x?a%00=1", "query: a parameter name must not contain U+0000 (NUL)"],
    ["/acquirer/v1/checkout/%00", "path: must not contain U+0000 (NUL)"],
    ["/core/v1/x?a=%F0%9F%8D%B5&b=%ED%A0%80", undefined]
  ] as const)("%s → %s", (url, expected) => {
    assert.strictEqual(targetProblem(url), expected)
  })
})

describe("SERVICE_KEYS", () => {
  it("items: bare secrets are unnamed admins; [name@]scope:secret; blanks skipped", () => {
    assert.deepStrictEqual(parseServiceKeys(""), [])
    assert.deepStrictEqual(parseServiceKeys(" a1 , scanner:s:2 ,, ops@alice@invest:i3 "), [
      { item: "a1", name: undefined, scope: "admin", secret: "a1" },
      { item: "scanner:s:2", name: undefined, scope: "scanner", secret: "s:2" },
      { item: "ops@alice@invest:i3", name: "ops@alice", scope: "invest", secret: "i3" }
    ])
  })

  it.each([
    ["x,root:abc", "SERVICE_KEYS: item 2 has an unknown scope (one of admin, scanner, signer, invest)"],
    ["signer:", "SERVICE_KEYS: item 1 has an empty secret ([name@]scope:secret)"],
    [":abc", "SERVICE_KEYS: item 1 has an empty scope ([name@]scope:secret)"],
    ["a,,@invest:abc", "SERVICE_KEYS: item 3 has an empty name ([name@]scope:secret)"],
    ["n\u00e9@invest:abc", "SERVICE_KEYS: item 1 has a name that is not 1-64 printable ASCII characters"],
    ["abc,signer:abc", "SERVICE_KEYS: item 2 has the secret of item 1"]
  ] as const)("%j → %s", (value, message) => {
    assert.strictEqual(parseServiceKeys(value), message)
  })
})

describe("client addresses and routes", () => {
  it.each([
    [undefined, "unknown"],
    ["10.0.0.7", "10.0.0.7"],
    ["::ffff:10.0.0.7", "10.0.0.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::9", "2001:db8:1:2::/64"]
  ] as const)("%s counts as %s", (address, key) => {
    assert.strictEqual(addressKey(address), key)
  })

  it("credentialed routes and long-polls come from the HttpApi definition", () => {
    assert.deepStrictEqual([...routeClasses.longPolls].sort(), [
      "GET /payorders/v1/wait_app_payment",
      "GET /private/v1/list_txs_to_send",
      "GET /private/v1/wait_cursor"
    ])
    for (const route of [
      "POST /private/v1/create_wallet",
      "GET /core/v1/wallet/get_balance",
      "POST /payment/v1/pay_internal"
    ])
      assert.isTrue(routeClasses.credentialed.has(route), route)
    for (const route of ["GET /core/v1/get_info", "POST /payment/v1/order_start", "GET /payment/v1/get_order_info"])
      assert.isFalse(routeClasses.credentialed.has(route), route)
  })
})

describe("token buckets", () => {
  const clock = () => {
    let now = 1_000_000
    return { now: () => now, advance: (ms: number) => (now += ms) }
  }

  it("a burst, then one token per 1/rate seconds; Retry-After in whole seconds", () => {
    const time = clock()
    const buckets = new TokenBuckets(2, 4, 100, time.now)
    assert.deepStrictEqual(
      Array.from({ length: 5 }, () => buckets.take("a")),
      [0, 0, 0, 0, 1]
    )
    assert.strictEqual(buckets.take("b"), 0, "another key has its own bucket")
    time.advance(499)
    assert.strictEqual(buckets.take("a"), 1)
    time.advance(1)
    assert.strictEqual(buckets.take("a"), 0)
    const slow = new TokenBuckets(0.25, 1, 100, time.now)
    assert.deepStrictEqual([slow.take("x"), slow.take("x")], [0, 4])
  })

  it("rate 0 is off; idle full buckets are swept; the map never outgrows its bound", () => {
    const time = clock()
    assert.strictEqual(new TokenBuckets(0, 0, 10, time.now).take("a"), 0)
    const buckets = new TokenBuckets(10, 20, 1_000, time.now)
    for (let i = 0; i < 500; i++) buckets.take(`k${i}`)
    assert.strictEqual(buckets.size, 500)
    time.advance(sweepEveryMs)
    buckets.take("fresh")
    assert.strictEqual(buckets.size, 1, "refilled buckets were dropped")
    const bounded = new TokenBuckets(1, 2, 100, time.now)
    for (let i = 0; i < 1_000; i++) bounded.take(`spoofed-${i}`)
    assert.isAtMost(bounded.size, 100)
  })
})
