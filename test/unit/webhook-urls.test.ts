/**
 * The webhook URL rules of C16 (src/platform/WebhookUrls.ts): http(s), ≤ 2048, no userinfo, and no
 * loopback, private, link-local or otherwise non-public host unless WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
 * including the spellings the URL parser normalises (hex and short IPv4, IPv4-mapped IPv6, a trailing dot).
 */
import { assert, describe, it } from "@effect/vitest"
import { webhookUrlProblem } from "../../src/platform/WebhookUrls.ts"

const refused: ReadonlyArray<[string, RegExp]> = [
  ["ftp://shop.example/hook", /http or https/],
  ["not a url", /not a URL/],
  ["https://user:secret@shop.example/hook", /user name or password/],
  ["https://user@shop.example/hook", /user name or password/],
  ["http://localhost:8080/hook", /localhost/],
  ["http://LOCALHOST./hook", /localhost/],
  ["http://api.localhost/hook", /localhost/],
  ["http://127.0.0.1/hook", /loopback/],
  ["http://127.8.9.10/hook", /loopback/],
  ["http://0x7f.1/hook", /loopback/],
  ["http://2130706433/hook", /loopback/],
  ["http://10.1.2.3/hook", /private/],
  ["http://172.16.0.1/hook", /private/],
  ["http://172.31.255.255/hook", /private/],
  ["http://192.168.1.1/hook", /private/],
  ["http://169.254.169.254/latest/meta-data", /linkLocal/],
  ["http://100.64.0.1/hook", /carrierGradeNat/],
  ["http://0.0.0.0/hook", /unspecified/],
  ["http://[::1]/hook", /loopback/],
  ["http://[::]/hook", /unspecified/],
  ["http://[fd00::1]/hook", /uniqueLocal/],
  ["http://[fe80::1]/hook", /linkLocal/],
  ["http://[::ffff:127.0.0.1]/hook", /loopback/],
  ["http://[::ffff:10.0.0.1]/hook", /private/],
  ["http://224.0.0.1/hook", /multicast/],
  ["https://shop.example/" + "a".repeat(2048), /2048/]
]

const accepted = [
  "https://shop.example/hook",
  "http://shop.example:8443/payments?x=1",
  "https://93.184.216.34/hook",
  "https://172.32.0.1/hook",
  "https://[2606:4700:4700::1111]/hook",
  "https://localhost.example.com/hook"
]

describe("webhookUrlProblem", () => {
  it("refuses each rule's breakers, naming the rule", () => {
    for (const [url, reason] of refused) {
      const problem = webhookUrlProblem(url, false)
      assert.isNotNull(problem, url)
      assert.match(problem!, reason, url)
    }
  })
  it("accepts public http(s) URLs of at most 2048 characters", () => {
    for (const url of accepted) assert.isNull(webhookUrlProblem(url, false), url)
    const longest = "https://shop.example/" + "a".repeat(2048 - "https://shop.example/".length)
    assert.strictEqual(longest.length, 2048)
    assert.isNull(webhookUrlProblem(longest, false))
  })
  it("WEBHOOK_ALLOW_PRIVATE_ADDRESSES lifts the host rule only", () => {
    for (const url of ["http://localhost:8080/hook", "http://10.1.2.3/hook", "http://[::1]/hook"])
      assert.isNull(webhookUrlProblem(url, true), url)
    assert.match(webhookUrlProblem("https://user:pw@localhost/hook", true)!, /user name/)
    assert.match(webhookUrlProblem("ftp://localhost/hook", true)!, /http or https/)
  })
})
