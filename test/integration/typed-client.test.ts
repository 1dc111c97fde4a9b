/**
 * The package's typed client (client/, issue #28 item 1) against the running service: one call per area
 * with the credential that area takes — public, wallet (sid), market (sid), merchant (pkey + app_id),
 * gate (the payment page's reads), private (service key) — through the Promise facade, and through the
 * Effect client; a rejection arrives as the endpoint's typed error with the server's message and code.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { CoreClient, createClient } from "../../client/index.ts"
import { WalletId } from "../../schema/Ids.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"

const { service, client } = serviceForFile()

describe("the typed client, one area after another", () => {
  it("public, wallet, market, merchant, gate and private calls decode as the schema declares", async () => {
    const { merchant, app } = await merchantOf(client).open("typed-client shop", { fund: "100" })
    const baseUrl = service().base
    const anyone = createClient({ baseUrl })
    const user = createClient({ baseUrl, sid: merchant.sid })
    const shop = createClient({ baseUrl, pkey: app.pkey })
    const operator = createClient({ baseUrl, serviceKey: service().key })
    try {
      const info = await anyone.public.get_info()
      assert.strictEqual(info.error, null)

      const balances = await user.wallet.get_balance()
      const usdt = balances.result.find((row) => row.currency === "USDT")
      assert.strictEqual(String(usdt?.freeBalance), "100")

      const rooms = await user.market.list_rooms()
      assert.isArray(rooms.result)

      const payments = await shop.payorders.get_app_payments({ query: { app_id: app.appId } })
      assert.deepStrictEqual(payments.result, [])

      const terminals = await anyone.payment.get_terminals({ query: {} })
      assert.isArray(terminals.result)

      const wallet = await operator.private.wallet_info_get({ query: { wallet_id: WalletId.make(merchant.id) } })
      assert.strictEqual(String(wallet.result.id), merchant.id)
    } finally {
      await Promise.all([anyone.close(), user.close(), shop.close(), operator.close()])
    }
  })

  it("a refusal is the endpoint's typed error: its tag, the server's message", async () => {
    const operator = createClient({ baseUrl: service().base, serviceKey: service().key })
    try {
      const refused = await operator.private.wallet_info_get({ query: { wallet_id: WalletId.make("987654321") } }).then(
        () => undefined,
        (error: unknown) => error
      )
      assert.instanceOf(refused, Error)
      assert.strictEqual((refused as { _tag?: string })._tag, "WalletNotFound")
      assert.isString((refused as Error).message)
      assert.notStrictEqual((refused as Error).message, "")
    } finally {
      await operator.close()
    }
    // No credential where one is needed: the middleware's Unauthorized, typed too.
    const stranger = createClient({ baseUrl: service().base })
    try {
      const refused = await stranger.wallet.get_balance().catch((error: unknown) => error)
      assert.strictEqual((refused as { _tag?: string })._tag, "Unauthorized")
    } finally {
      await stranger.close()
    }
  })

  it.effect("the Effect client: the same calls as values, failures in the error channel", () =>
    Effect.gen(function* () {
      const core = yield* CoreClient
      const info = yield* core.public.get_info()
      assert.strictEqual(info.error, null)
      const exit = yield* Effect.exit(core.private.wallet_info_get({ query: { wallet_id: WalletId.make("1") } }))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(JSON.stringify(exit), "WalletNotFound")
    }).pipe(Effect.provide(CoreClient.layer({ baseUrl: service().base, serviceKey: service().key })))
  )
})
