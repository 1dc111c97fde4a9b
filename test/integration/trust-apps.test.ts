/**
 * C19 §5, merchant apps, over HTTP: rotate_app_key gives a new pkey (shown once) and the old one is
 * refused from then on; set_app_enabled false makes the app's pkey 403 10411 and the gate answer
 * 400 10411 to order_start and pay_* of its orders while reads still work; enabled again, the same
 * requests go through. The ledger audit is checked after every test (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"

const { client } = serviceForFile({ setup: async () => {} })
const shop = merchantOf(client)
let next = 0

const internalTerminal = async () => {
  const networks = await client.priv("GET", "tokens_networks")
  return String((networks.body.result as Array<any>).find((t) => t.typeNetwork === 240).id)
}

describe("C19 §5: merchant apps", () => {
  it("rotate_app_key: a new pkey works, the old one is refused (401); an unknown app is 404", async () => {
    const { app } = await shop.open("Rotating shop")
    assert.strictEqual((await shop.call(app, "GET", "get_app_payments")).status, 200)
    const rotated = await client.priv("POST", "rotate_app_key", { appId: app.appId })
    assert.strictEqual(rotated.status, 200, JSON.stringify(rotated.body))
    assert.strictEqual(rotated.body.result.appId, app.appId)
    assert.isString(rotated.body.result.pkey)
    assert.notStrictEqual(rotated.body.result.pkey, app.pkey)
    assertRejected(await shop.call(app, "GET", "get_app_payments"), 401, errorCode.Unauthorized, "old pkey")
    const fresh = { ...app, pkey: rotated.body.result.pkey as string }
    assert.strictEqual((await shop.call(fresh, "GET", "get_app_payments")).status, 200)
    assertRejected(await client.priv("POST", "rotate_app_key", { appId: "987654321" }), 404, errorCode.AppNotFound)
  })

  it("set_app_enabled false: pkey 403 10411; order_start and pay_internal 400 10411; reads work; enabled again, it pays", async () => {
    const { app } = await shop.open("Disabled shop")
    const payer = await client.party({ fund: "100" })
    const order = await shop.put(app, { orderAmount: "10", externalId: `disabled-${next++}` })
    const off = await client.priv("POST", "set_app_enabled", { appId: app.appId, enabled: false })
    assert.strictEqual(off.status, 200, JSON.stringify(off.body))
    assert.deepStrictEqual(off.body.result, { appId: app.appId, enabled: false })

    assertRejected(await shop.call(app, "GET", "get_app_payments"), 403, errorCode.AppDisabled, "pkey")
    assertRejected(
      await shop.call(app, "POST", "put_payment_order", { currency: "USDT", orderAmount: "1", externalId: "x" }),
      403,
      errorCode.AppDisabled,
      "put_payment_order"
    )
    const terminal = await internalTerminal()
    assertRejected(
      await shop.gate("POST", "order_start", order.code, { tokenNetworkId: terminal }),
      400,
      errorCode.AppDisabledOrder,
      "order_start"
    )
    assertRejected(
      await shop.gate("POST", "pay_internal", order.code, {}, payer.sid),
      400,
      errorCode.AppDisabledOrder,
      "pay_internal"
    )
    const info = await shop.gate("GET", "get_order_info", order.code)
    assert.strictEqual(info.status, 200, "reads still work")
    assert.strictEqual(info.body.result.state, "Created")
    assert.strictEqual((await client.bucketsOf(payer)).free, 100, "nothing moved")

    const on = await client.priv("POST", "set_app_enabled", { appId: app.appId, enabled: true })
    assert.strictEqual(on.status, 200)
    const paid = await shop.gate("POST", "pay_internal", order.code, {}, payer.sid)
    assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
    assert.strictEqual(paid.body.result.state, "Paid")
    assert.strictEqual((await shop.call(app, "GET", "get_app_payments")).status, 200)
  })
})
