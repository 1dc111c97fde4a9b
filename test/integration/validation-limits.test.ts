/**
 * The service's limits on requests (CONTRACT C4, C5), over real HTTP to the real service:
 * list_last_updated_txs clamps its limit rather than refusing it, and a body over 1 MiB is refused
 * with 413 before it is parsed.
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected } from "../support/Fixtures.ts"
import { validationFile } from "../support/Validation.ts"

const { service, client } = validationFile()

describe('list_last_updated_txs clamps its limit (SPEC: "Clamped into 1..1000")', () => {
  it("limit -5 and 5000 are clamped, not refused", async () => {
    for (const limit of [-5, 5000]) {
      const reply = await client.priv("POST", "list_last_updated_txs", { limit })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.isAtMost(reply.body.result.length, limit < 1 ? 1 : 1000)
    }
  })
})

describe("request body size limit", () => {
  it("a body over 1 MiB is refused with 413 before it is parsed, and nothing is created", async () => {
    const before = await client.priv("GET", "get_wallets?client_id=88000001")
    const reply = await client.call("POST", "/private/v1/create_wallet", {
      bearer: service().key,
      raw: JSON.stringify({ clientId: "88000001", name: "x".repeat(1_100_000) })
    })
    assertRejected(reply, 413, 10001)
    assert.include(reply.body.error?.message ?? "", "body: larger than")
    const after = await client.priv("GET", "get_wallets?client_id=88000001")
    assert.strictEqual(after.body.result.length, before.body.result.length)
  })
})
