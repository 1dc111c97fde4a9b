/**
 * The foundation over real HTTP against the real service process: the envelope on every kind of
 * response, request numbering, the API reference, monitoring on its own port, migrations applied
 * idempotently across restarts, and a clean SIGTERM with nothing acknowledged lost.
 */
import { rmSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { isEnvelope, makeClient } from "../support/Client.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { dropDatabase } from "../support/Postgres.ts"
import { startService, usingRealPostgres } from "../support/Service.ts"

const { service, client } = serviceForFile()

describe("envelope and statuses (C4)", () => {
  it("public get_info answers 200 in the envelope with a request id header", async () => {
    const reply = await client.call("GET", "/core/v1/get_info")
    assert.strictEqual(reply.status, 200)
    assert.isTrue(isEnvelope(reply.body))
    assert.strictEqual(reply.body.error, null)
    assert.strictEqual(reply.body.result.status, "ok")
    assert.strictEqual(reply.headers.get("x-request-id"), String(reply.body.id))
  })

  it("request ids are unique and increasing", async () => {
    const a = await client.call("GET", "/core/v1/get_info")
    const b = await client.call("GET", "/core/v1/get_info")
    assert.isTrue(b.body.id > a.body.id)
  })

  it("unknown actions in every area answer 404 in the envelope", async () => {
    for (const path of [
      "/core/v1/nope",
      "/core/v1/wallet/nope",
      "/core/v1/market/nope",
      "/core/v1/invest/nope",
      "/payorders/v1/nope",
      "/payment/v1/nope",
      "/private/v1/nope",
      "/elsewhere"
    ]) {
      const reply = await client.call("GET", path)
      assert.strictEqual(reply.status, 404, path)
      assert.isTrue(isEnvelope(reply.body), path)
      assert.strictEqual(reply.body.error?.code, 10404, path)
    }
  })

  it("malformed JSON is 400 with code 10001", async () => {
    const reply = await client.call("POST", "/private/v1/create_wallet", { bearer: service().key, raw: "{oops" })
    assert.strictEqual(reply.status, 400)
    assert.strictEqual(reply.body.error?.code, 10001)
    assert.isNull(reply.body.result)
  })
})

describe("API reference (/core/swagger/)", () => {
  it("serves Swagger UI with the document inline (works offline)", async () => {
    const response = await fetch(service().base + "/core/swagger/")
    const html = await response.text()
    assert.strictEqual(response.status, 200)
    assert.include(html, "SwaggerUIBundle")
    // No asset is fetched from elsewhere: scripts and styles are inline.
    assert.notMatch(html, /<script[^>]+src=/)
    assert.notMatch(html, /<link[^>]+href=/)
  })

  it("the OpenAPI document lists every area and shows errors as envelopes with their codes", async () => {
    const spec = (await (await fetch(service().base + "/core/openapi.json")).json()) as any
    assert.strictEqual(spec.openapi.startsWith("3.1"), true)
    for (const path of [
      "/core/v1/get_info",
      "/core/v1/wallet/get_balance",
      "/core/v1/market/get_rates",
      "/core/v1/invest/get_investments",
      "/payorders/v1/get_app_payments",
      "/payment/v1/get_terminals",
      "/private/v1/execute_transactions"
    ]) {
      assert.isDefined(spec.paths[path], path)
    }
    const balanceErrors = spec.paths["/core/v1/wallet/get_balance"].get.responses
    assert.strictEqual(
      balanceErrors["401"].content["application/json"].schema.$ref,
      "#/components/schemas/ErrorEnvelope"
    )
    assert.include(balanceErrors["401"].description, "10401")
    assert.strictEqual(spec["x-error-codes"].BalanceNotEnough.code, 10002)
    assert.strictEqual(spec["x-error-codes"].NonceExists.code, 10130)
  })
})

describe("monitoring (C9)", () => {
  it("serves /metrics and /health on the monitoring port only", async () => {
    await client.call("GET", "/core/v1/get_info")
    const metrics = await fetch(service().monitoring + "/metrics")
    const text = await metrics.text()
    assert.strictEqual(metrics.status, 200)
    assert.include(text, "http_request_duration_seconds_bucket")
    assert.include(text, 'route="/core/v1/get_info"')
    assert.include(text, "ledger_commit_batch_size")
    assert.include(text, "nodejs_eventloop_delay_p99_seconds")
    const health = await fetch(service().monitoring + "/health")
    assert.strictEqual(health.status, 200)
    const onPublic = await client.call("GET", "/metrics")
    assert.strictEqual(onPublic.status, 404)
  })

  it("monitoring_stats returns the same figures as JSON to service credentials", async () => {
    const reply = await client.priv("GET", "monitoring_stats")
    assert.strictEqual(reply.status, 200)
    assert.isArray(reply.body.result.http)
    assert.isNumber(reply.body.result.ledger.commits)
  })
})

describe("restart and shutdown (C1)", () => {
  it("SIGTERM exits 0, nothing acknowledged is lost, and a restart re-applies no migration", async () => {
    // Every other service starts from the run's migrated template (test/support/Template.ts); this one
    // migrates an empty database, as a first `npm start` does.
    const own = await startService({ fromScratch: true })
    const ownClient = makeClient(own)
    const wallet = await ownClient.createWallet("77001")
    // Acknowledged credits issued right before the signal must all be there after the restart.
    const credits = await Promise.all(Array.from({ length: 20 }, () => ownClient.fund(wallet.id, "USDT", "1.5")))
    assert.strictEqual(credits.length, 20)
    const code = await own.stop("SIGTERM", true)
    assert.strictEqual(code, 0)
    // The same database again: the embedded data directory, or the same server database.
    const again = await startService(usingRealPostgres() ? { databaseUrl: own.databaseUrl } : { dataDir: own.dataDir })
    try {
      const againClient = makeClient(again)
      const sid = await againClient.createSession(wallet.id)
      const row = await againClient.balance(sid, "USDT")
      assert.strictEqual(row.freeBalance, 30)
    } finally {
      await again.stop()
      if (!usingRealPostgres()) rmSync(own.dataDir, { recursive: true, force: true })
      else await dropDatabase(own.databaseUrl!)
    }
  }, 120_000) // two more services boot here; an embedded boot takes 15-40 s on a loaded 2-core machine
})
