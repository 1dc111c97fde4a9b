/**
 * Scoped service keys (CONTRACT C19 §2), over real HTTP against a service started with one key of each
 * scope: the scanner, signer and invest keys get past authentication on exactly their actions and are
 * 403 10405 on every other `/private/v1/` route of the served document (the admin key on all of them);
 * the scanner key can no longer mint money or open sessions (the attack: nothing moves); a named
 * key is the operator of its investments; a malformed SERVICE_KEYS stops the start naming the item, never
 * its secret; and the key generated at first start is an admin key.
 */
import { assert, describe, it } from "@effect/vitest"
import { isEnvelope } from "../support/Client.ts"
import { documentedRoutes, type DocumentedRoute, startFailing } from "../support/Edge.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { investOf } from "../support/Invest.ts"
import { startService } from "../support/Service.ts"

const keys = {
  scanner: "scanner-secret-0123456789abcdef",
  signer: "signer-secret-0123456789abcdef",
  invest: "invest-secret-0123456789abcdef",
  alice: "alice-secret-0123456789abcdef",
  root: "root-secret-0123456789abcdef"
}

const { service, client } = serviceForFile({
  env: {
    SERVICE_KEYS: `{key}, scanner:${keys.scanner}, signer:${keys.signer}, invest:${keys.invest}, ops-alice@invest:${keys.alice}, ops-root@admin:${keys.root}`
  }
})
const invest = investOf(client, service)

/** Which actions each scope may call (C19 §2); admin all. */
const allowed: Record<string, ReadonlyArray<string>> = {
  scanner: ["tx_list_push", "address_block_list", "scanner_terminal"],
  signer: ["list_txs_to_send", "tx_send_report", "scanner_terminal"],
  invest: ["create_investment", "activate_investment", "set_profits_for_investments", "get_investment"]
}

const send = (route: DocumentedRoute, key: string) => {
  const path = route.path.includes("wait_") ? `${route.path}?timeout=0` : route.path
  return client.call(route.method, path, { bearer: key, ...(route.method === "GET" ? {} : { body: {} }) })
}

describe("each scope calls its actions only (403 10405 elsewhere)", () => {
  it("scanner, signer and invest keys on every /private/v1/ route of the document; admin keys on all", async () => {
    const routes = (await documentedRoutes(service())).filter((route) => route.path.startsWith("/private/v1/"))
    assert.isAbove(routes.length, 40)
    const problems: Array<string> = []
    for (const [scope, key] of [
      ["scanner", keys.scanner],
      ["signer", keys.signer],
      ["invest", keys.invest],
      ["admin", keys.root],
      ["admin", service().key]
    ] as const) {
      for (const route of routes) {
        const action = route.path.slice("/private/v1/".length)
        const reply = await send(route, key)
        const refused = reply.status === 403 && reply.body.error?.code === errorCode.KeyScope
        const mayCall = scope === "admin" || allowed[scope].includes(action)
        // Past authentication means anything but 401 and 403 (an empty body may well be a 400).
        const ok = isEnvelope(reply.body) && (mayCall ? reply.status !== 401 && reply.status !== 403 : refused)
        if (!ok) problems.push(`${scope} ${route.method} ${action}: ${reply.status} ${JSON.stringify(reply.body)}`)
      }
    }
    assert.deepStrictEqual(problems, [])
  }, 180_000)
})

describe("the scanner's key can no longer mint money or act as a user (the issue's attack)", () => {
  it("execute_transactions, create_session, create_app and set_rates with the scanner key: 403 10405, nothing moves", async () => {
    const victim = await client.party({ fund: "5" })
    const before = await client.bucketsOf(victim)
    const mint = await client.call("POST", "/private/v1/execute_transactions", {
      bearer: keys.scanner,
      body: [
        { externalId: "scanner-mint-1", walletId: victim.id, currency: "USDT", amount: "1000000", direction: "credit" }
      ]
    })
    assertRejected(mint, 403, errorCode.KeyScope, "mint", "Authorization")
    const session = await client.call("POST", "/private/v1/create_session", {
      bearer: keys.scanner,
      body: { walletId: victim.id }
    })
    assertRejected(session, 403, errorCode.KeyScope, "create_session")
    const app = await client.call("POST", "/private/v1/create_app", {
      bearer: keys.signer,
      body: { walletId: victim.id, name: "Stolen" }
    })
    assertRejected(app, 403, errorCode.KeyScope, "create_app")
    assert.deepStrictEqual(await client.bucketsOf(victim), before)
    // The externalId was never used: the admin key may still use it, and it is a first posting.
    const real = await client.priv("POST", "execute_transactions", [
      { externalId: "scanner-mint-1", walletId: victim.id, currency: "USDT", amount: "1", direction: "credit" }
    ])
    assert.strictEqual(real.body.result[0].replayed ?? false, false, JSON.stringify(real.body))
    assert.strictEqual((await client.bucketsOf(victim)).free, before.free + 1)
  })
})

describe("a named key is its investments' operator", () => {
  it("X-Owner-Id absent records the key's name; equal to it is accepted; any other is 403 10405 and creates nothing", async () => {
    const saver = await client.party({ fund: "300" })
    const named = (owner: string | null, body: Record<string, unknown>, key = keys.alice) =>
      client.call("POST", "/private/v1/create_investment", {
        bearer: key,
        body,
        headers: owner === null ? {} : { "x-owner-id": owner }
      })
    const first = await named(null, invest.body(saver))
    assert.strictEqual(first.status, 200, JSON.stringify(first.body))
    assert.strictEqual((await invest.get(first.body.result)).ownerId, "ops-alice")
    const second = await named("ops-alice", invest.body(saver))
    assert.strictEqual(second.status, 200, JSON.stringify(second.body))
    assert.strictEqual((await invest.get(second.body.result)).ownerId, "ops-alice")
    const free = (await client.bucketsOf(saver)).free
    assertRejected(await named("ops-bob", invest.body(saver)), 403, errorCode.KeyScope, "other owner", "X-Owner-Id")
    // A named admin key is an operator too.
    assertRejected(
      await named("ops-bob", invest.body(saver), keys.root),
      403,
      errorCode.KeyScope,
      "named admin",
      "X-Owner-Id"
    )
    assert.strictEqual((await client.bucketsOf(saver)).free, free, "nothing was invested")
    const activate = await client.call("POST", "/private/v1/activate_investment", {
      bearer: keys.alice,
      body: { timetick: first.body.result },
      headers: { "x-owner-id": "ops-bob" }
    })
    assertRejected(activate, 403, errorCode.KeyScope, "activate as another")
  })

  it("an unnamed key keeps C17's rule: X-Owner-Id is required on writes (400 10001)", async () => {
    const saver = await client.party({ fund: "150" })
    const reply = await client.call("POST", "/private/v1/create_investment", {
      bearer: keys.invest,
      body: invest.body(saver)
    })
    assertRejected(reply, 400, errorCode.InvalidRequest, "unnamed", "header X-Owner-Id")
    const owned = await client.call("POST", "/private/v1/create_investment", {
      bearer: keys.invest,
      body: invest.body(saver),
      headers: { "x-owner-id": "ops-carol" }
    })
    assert.strictEqual(owned.status, 200, JSON.stringify(owned.body))
    assert.strictEqual((await invest.get(owned.body.result)).ownerId, "ops-carol")
  })
})

describe("SERVICE_KEYS at start", () => {
  it.each([
    ["an unknown scope", "good-admin-secret,bogus:secret-of-item-2", 2],
    ["an empty secret", "good-admin-secret,scanner:", 2],
    ["an empty scope", ":secret-of-item-1", 1],
    ["an empty name", "@invest:secret-of-item-1", 1],
    ["a name that is not printable ASCII", "ops\u00e9@invest:secret-of-item-1", 1],
    ["one secret twice", "dup-secret-xyz,signer:dup-secret-xyz", 2]
  ] as const)(
    "%s stops the service: exit ≠ 0, SERVICE_KEYS and the item named, no secret",
    async (_, value, item) => {
      const { exitCode, output } = await startFailing({ SERVICE_KEYS: value })
      assert.notStrictEqual(exitCode, 0, output)
      assert.include(output, `SERVICE_KEYS: item ${item}`, output)
      for (const secret of ["secret-of-item", "good-admin-secret", "dup-secret-xyz", "bogus"])
        assert.notInclude(output, secret, output)
    },
    150_000
  )

  it("the key generated at first start is an admin key", async () => {
    const own = await startService({ env: { SERVICE_KEYS: "" } })
    try {
      const generated = /Generated service key[^\n]*\n\s+(\S+)/.exec(own.log())?.[1]
      assert.isString(generated, own.log())
      const reply = await fetch(own.base + "/private/v1/create_wallet", {
        method: "POST",
        headers: { authorization: `Bearer ${generated}`, "content-type": "application/json" },
        body: JSON.stringify({ clientId: "5550001" })
      })
      assert.strictEqual(reply.status, 200, await reply.text())
    } finally {
      await own.stop()
    }
  }, 150_000)
})
