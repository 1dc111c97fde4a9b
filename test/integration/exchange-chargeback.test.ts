/**
 * ChargeBack protection (SPEC market rule 8, CONTRACT C14 CHARGEBACK_DAYS): with the setting on,
 * free funds other wallets credited within that many days cannot be the outgoing side of a swap
 * (10002, nothing reserved), while funds received earlier can; swap_info's maxAmount leaves the
 * protected funds out. Ageing a credit needs direct SQL, so that half runs against a real server.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { makeClient, type TestClient } from "../support/Client.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"

let service: RunningService
let client: TestClient
beforeAll(async () => {
  service = await startService({ env: { CHARGEBACK_DAYS: "30" } })
  client = makeClient(service)
  const rates = await client.priv("POST", "set_rates", [{ from: "BTC", to: "USDT", rate: "60000" }])
  assert.strictEqual(rates.status, 200, JSON.stringify(rates.body))
}, 120_000)
afterAll(async () => {
  await service?.stop()
})

const swap = (sid: string, fromAmount: string, toAmount: string, clientNonce: number) =>
  client.call("POST", "/core/v1/market/create_swap", {
    sid,
    body: { fromCurrency: "BTC", toCurrency: "USDT", fromAmount, toAmount, clientNonce }
  })

it("funds received within CHARGEBACK_DAYS cannot be swapped: 10002, nothing reserved; swap_info's maxAmount excludes them", async () => {
  const wallet = await client.createWallet("7710001")
  const sid = await client.createSession(wallet.id)
  await client.fund(wallet.id, "BTC", "0.5")
  const info = await client.call("GET", "/core/v1/market/swap_info?currency_from=BTC&currency_to=USDT", { sid })
  assert.strictEqual(info.body.result.chargebackDays, 30)
  assert.strictEqual(info.body.result.maxAmount, "0")
  const refused = await swap(sid, "0.1", "6000", 1)
  assert.strictEqual(refused.status, 400)
  assert.strictEqual(refused.body.error?.code, 10002, JSON.stringify(refused.body))
  const row = await client.balance(sid, "BTC")
  assert.strictEqual(row.freeBalance, 0.5)
  assert.strictEqual(row.lockOutBalance, 0)
  await client.assertLedgerSound()
})

itWithServer(
  "funds received before the protection window can be swapped; the recent part stays protected",
  async () => {
    const wallet = await client.createWallet("7710002")
    const sid = await client.createSession(wallet.id)
    const oldTx = await client.fund(wallet.id, "BTC", "0.3")
    await client.fund(wallet.id, "BTC", "0.2")
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE transactions SET created_at = now() - interval '40 days' WHERE id = ${oldTx}`
        }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(service.databaseUrl!), maxConnections: 1 })))
      )
    )
    const info = await client.call("GET", "/core/v1/market/swap_info?currency_from=BTC&currency_to=USDT", { sid })
    assert.strictEqual(info.body.result.maxAmount, "0.3")
    const tooMuch = await swap(sid, "0.31", "18600", 1)
    assert.strictEqual(tooMuch.body.error?.code, 10002, JSON.stringify(tooMuch.body))
    const ok = await swap(sid, "0.3", "18000", 2)
    assert.strictEqual(ok.status, 200, JSON.stringify(ok.body))
    const done = await client.call(
      "POST",
      `/core/v1/market/create_swap?confirmationTimetick=${ok.body.result.txId}&confirmationCode=${ok.body.result.confirmationCode}`,
      { sid, body: { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: "0.3", toAmount: "18000", clientNonce: 2 } }
    )
    assert.strictEqual(done.body.result?.confirmationStatusCode, "Confirmed", JSON.stringify(done.body))
    assert.strictEqual((await client.balance(sid, "BTC")).freeBalance, 0.2)
    assert.strictEqual((await client.balance(sid, "USDT")).freeBalance, 18000)
    await client.assertLedgerSound()
  }
)
