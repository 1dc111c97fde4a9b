/**
 * The universal payment page (CONTRACT C16 "The payment page") end to end: headless Chromium against the
 * real service. It pays an order from a wallet (the `sid` cookie; /pay and /pay-auth), by card through
 * the sandbox checkout, shows a crypto address with its QR code and follows the chain to Paid by
 * polling, counts an order down to Expired, and answers an unknown code with a 404 page. The CSP holds
 * (no violation reported by the browser). The ledger audit runs after each test. Without Chromium the
 * browser tests skip loudly (test/support/Browser.ts).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { Browser, Page } from "playwright-core"
import { addCryptoTerminal, blockOk } from "../support/Chain.ts"
import type { Party } from "../support/Client.ts"
import { xpubEnv } from "../support/CryptoAddresses.ts"
import { hasChromium, itWithBrowser, launchBrowser, newPayer } from "../support/Browser.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { merchantOf, type App } from "../support/Merchant.ts"

// The page's links (payUrl, checkoutUrl) point at PUBLIC_BASE_URL, by default the service's own address.
const { service, client } = serviceForFile({ env: { ...xpubEnv, ACQUIRER: "sandbox" }, setup: async () => {} })
const shop = merchantOf(client)
const base = () => service().base

let merchant: Party
let fees: Party
let app: App
let internalTerminal: string
let next = 0
let browser: Browser | undefined

const setup = async () => {
  if (merchant !== undefined) return
  ;({ merchant, fees, app } = await shop.open("Tea House"))
  await client.setTariffs([
    { txClass: "Payment", currency: "USDT", feeFixed: "0.5", feePercent: "0", profitWalletId: fees.id },
    { txClass: "Payment", currency: "ETH", feeFixed: "0.01", feePercent: "0", profitWalletId: fees.id }
  ])
  const networks = await client.priv("GET", "tokens_networks")
  internalTerminal = String((networks.body.result as Array<any>).find((t) => t.typeNetwork === 240).id)
}

const newOrder = async (body: Record<string, unknown> = {}) => {
  await setup()
  return (await shop.put(app, {
    orderAmount: "10",
    description: "Two pots of oolong",
    externalId: `page-${next++}`,
    ...body
  })) as { code: string; id: string; payUrl: string }
}

/** The file's Card (typeNetwork 100) terminal in USDT, served by the sandbox acquirer. */
let cardTerminal: string | undefined
const cardTerminalId = async () => {
  if (cardTerminal !== undefined) return cardTerminal
  const card = await client.priv("POST", "add_network", {
    typeNetwork: 100,
    typeContract: 0,
    currencyId: "USDT",
    decimals: 6,
    displayName: "Card",
    flags: 1,
    defaultHotAddress: null,
    defaultSystemWalletId: null,
    walletGroups: []
  })
  assert.strictEqual(card.status, 200, JSON.stringify(card.body))
  cardTerminal = String(card.body.result.id)
  return cardTerminal
}

beforeAll(async () => {
  if (hasChromium()) browser = await launchBrowser()
}, 60_000)
afterAll(async () => {
  await browser?.close()
})

/** A page of a fresh context (390 px wide unless told), recording our pages' CSP violations and errors. */
const open = async (options: { sid?: string; width?: number } = {}) => {
  const context = await newPayer(browser!, base(), options)
  const page = await context.newPage()
  const problems: Array<string> = []
  // The service's own documents count: the payment page and the acquirer's checkout the card test visits.
  const ours = (url: string) => /^\/(pay|acquirer)/.test(new URL(url, base()).pathname)
  page.on("console", (message) => {
    if (
      message.type() === "error" &&
      /Content Security Policy|Refused to/i.test(message.text()) &&
      ours(message.location().url || page.url())
    )
      problems.push(message.text())
  })
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
  return { context, page, problems }
}

const hook = (page: Page, name: string) => page.locator(`[data-pay=${name}]`)
const orderState = (page: Page, state: string, timeout = 15_000) =>
  page.waitForSelector(`[data-pay=order][data-state=${state}]`, { timeout })

describe("the page", () => {
  it("answers HTML with the CSP; an unknown code is a 404 page, not an envelope; assets are same-origin files", async () => {
    const order = await newOrder()
    const found = await fetch(`${base()}/pay?code=${order.code}`)
    assert.strictEqual(found.status, 200)
    assert.match(found.headers.get("content-type") ?? "", /^text\/html/)
    assert.match(found.headers.get("content-security-policy") ?? "", /^default-src 'self'/)
    const html = await found.text()
    assert.notMatch(html, /<script>|<style|style="|https?:\/\//, "no inline code, nothing from another origin")
    assert.include(html, 'data-pay="amount">10<')
    assert.include(html, "Tea House")
    const missing = await fetch(`${base()}/pay?code=Pnothing-here`)
    assert.strictEqual(missing.status, 404)
    assert.match(missing.headers.get("content-type") ?? "", /^text\/html/)
    assert.include(await missing.text(), 'data-pay="error"')
    assert.strictEqual((await fetch(`${base()}/pay`)).status, 404)
    // /pay-auth without a session (none, or one that is not valid): the order's page, 200, asking to sign in.
    for (const headers of [{}, { cookie: "sid=not-a-session" }] as Array<Record<string, string>>) {
      const unsigned = await fetch(`${base()}/pay-auth?code=${order.code}`, { headers })
      assert.strictEqual(unsigned.status, 200)
      assert.match(unsigned.headers.get("content-security-policy") ?? "", /^default-src 'self'/)
      const page = await unsigned.text()
      assert.include(page, 'data-pay="order"')
      assert.include(page, 'data-pay="amount">10<')
      assert.include(page, 'data-role="sign-in-needed"')
      assert.include(page, `href="/pay?code=${order.code}"`)
      assert.notInclude(page, "data-auth")
      assert.notInclude(page, 'data-role="signed-in"')
    }
    assert.strictEqual((await fetch(`${base()}/pay-auth?code=Pnothing-here`)).status, 404)
    for (const [path, type] of [
      ["/pay/pay.js", "text/javascript"],
      ["/pay/pay-model.js", "text/javascript"],
      ["/pay/pay-view.js", "text/javascript"],
      ["/pay/pay.css", "text/css"]
    ]) {
      const asset = await fetch(base() + path)
      assert.strictEqual(asset.status, 200, path)
      assert.match(asset.headers.get("content-type") ?? "", new RegExp(`^${type}`))
    }
    const noAddress = await fetch(`${base()}/pay/qr.svg?code=${order.code}`)
    assert.strictEqual(noAddress.status, 404)
  })

  itWithBrowser("not found: 404 with [data-pay=error] shown", async () => {
    const { context, page, problems } = await open()
    const response = await page.goto(`${base()}/pay?code=Punknown123`)
    assert.strictEqual(response?.status(), 404)
    assert.isTrue(await hook(page, "error").isVisible())
    assert.include(await hook(page, "error").innerText(), "not valid")
    assert.deepStrictEqual(problems, [])
    await context.close()
  })

  itWithBrowser(
    "shows the order and its terminals with quotes; a wallet payment without sign-in shows the gate's error",
    async () => {
      const order = await newOrder()
      const { context, page, problems } = await open()
      await page.goto(order.payUrl)
      const button = page.locator(`button[data-pay=terminal][data-terminal-id="${internalTerminal}"]`)
      await button.waitFor()
      assert.strictEqual(await hook(page, "amount").innerText(), "10")
      assert.strictEqual(await hook(page, "currency").innerText(), "USDT")
      assert.strictEqual(await hook(page, "description").innerText(), "Two pots of oolong")
      assert.strictEqual(await hook(page, "merchant").innerText(), "Tea House")
      assert.strictEqual(await hook(page, "order").getAttribute("data-state"), "Created")
      assert.include(await button.innerText(), "10.5 USDT", "the quote: orderAmount + fee")
      assert.isFalse(await hook(page, "pay").isVisible(), "no terminal chosen yet")
      await button.click()
      await orderState(page, "Started")
      await hook(page, "pay").waitFor({ state: "visible" })
      await hook(page, "pay").click()
      await hook(page, "error").waitFor({ state: "visible" })
      assert.include(await hook(page, "error").innerText(), "Sign in")
      assert.strictEqual(await hook(page, "order").getAttribute("data-state"), "Started")
      assert.deepStrictEqual(problems, [])
      await context.close()
    }
  )
})

describe("paying", () => {
  itWithBrowser("internal: the payer's sid pays from the wallet; merchant +10, payer −10.5, order Paid", async () => {
    const order = await newOrder({ returnUrlSuccess: "https://tea.example/thanks" })
    const payer = await client.party({ fund: "25" })
    const merchantBefore = await client.bucketsOf(merchant)
    const { context, page, problems } = await open({ sid: payer.sid })
    await page.goto(order.payUrl)
    await page.locator(`button[data-pay=terminal][data-terminal-id="${internalTerminal}"]`).click()
    await hook(page, "pay").waitFor({ state: "visible" })
    await hook(page, "pay").click()
    await orderState(page, "Paid")
    assert.isFalse(await hook(page, "error").isVisible())
    assert.strictEqual(await page.locator("[data-role=return]").getAttribute("href"), "https://tea.example/thanks")
    assert.isTrue(await page.locator(`button[data-pay=terminal]`).first().isDisabled(), "nothing left to pay")
    const paid = await shop.order(app, order.id)
    assert.deepInclude(paid, { state: "Paid", payerWalletId: payer.id, paidAmount: "10" })
    assert.closeTo((await client.bucketsOf(merchant)).free - merchantBefore.free, 10, 1e-9)
    assert.closeTo((await client.bucketsOf(payer)).free, 14.5, 1e-9)
    assert.deepStrictEqual(problems, [])
    await context.close()
  })

  itWithBrowser("/pay-auth: the signed-in payer has the wallet preselected and pays in one click", async () => {
    const order = await newOrder()
    const payer = await client.party({ fund: "11" })
    const { context, page, problems } = await open({ sid: payer.sid })
    const response = await page.goto(`${base()}/pay-auth?code=${order.code}`)
    assert.strictEqual(response?.status(), 200)
    await page.waitForSelector("[data-role=signed-in]:has-text('11')")
    await hook(page, "pay").waitFor({ state: "visible" })
    assert.strictEqual(await hook(page, "order").getAttribute("data-state"), "Created", "chosen, not started")
    await hook(page, "pay").click()
    await orderState(page, "Paid")
    assert.strictEqual((await shop.order(app, order.id)).payerWalletId, payer.id)
    assert.deepStrictEqual(problems, [])
    await context.close()
  })

  itWithBrowser("card: choose Card, pay, the sandbox checkout takes 4242…, back on the page showing Paid", async () => {
    await setup()
    const cardTerminal = await cardTerminalId()
    const order = await newOrder()
    const merchantBefore = await client.bucketsOf(merchant)
    const { context, page, problems } = await open()
    await page.goto(order.payUrl)
    await page.locator(`button[data-pay=terminal][data-terminal-id="${cardTerminal}"]`).click()
    await orderState(page, "Started")
    await hook(page, "pay").click()
    await page.waitForURL(/\/acquirer\/v1\/checkout\//)
    assert.include(await page.locator("body").innerText(), "10.5")
    await page.locator("input[name=cardNumber]").fill("4242424242424242")
    await page.locator("input[name=expiry]").fill("12/34")
    await page.locator("input[name=cvc]").fill("123")
    await page.locator("button[type=submit]").click()
    await page.waitForURL((url) => url.pathname === "/pay" && url.searchParams.get("code") === order.code)
    await orderState(page, "Paid")
    assert.strictEqual(await hook(page, "order").getAttribute("data-acquiring"), "Approved")
    assert.strictEqual((await shop.order(app, order.id)).state, "Paid")
    assert.closeTo((await client.bucketsOf(merchant)).free - merchantBefore.free, 10, 1e-9)
    assert.deepStrictEqual(problems, [])
    await context.close()
  })

  itWithBrowser("card declined: back on the page with the decline shown, the card offered again", async () => {
    await setup()
    const cardTerminal = await cardTerminalId()
    const order = await newOrder()
    const { context, page, problems } = await open()
    await page.goto(order.payUrl)
    await page.locator(`button[data-pay=terminal][data-terminal-id="${cardTerminal}"]`).click()
    await orderState(page, "Started")
    await hook(page, "pay").click()
    await page.waitForURL(/\/acquirer\/v1\/checkout\//)
    await page.locator("input[name=cardNumber]").fill("4000000000000002")
    await page.locator("input[name=expiry]").fill("12/34")
    await page.locator("input[name=cvc]").fill("123")
    await page.locator("button[type=submit]").click()
    await page.waitForURL((url) => url.pathname === "/pay" && url.searchParams.get("code") === order.code)
    await page.waitForSelector("[data-pay=order][data-acquiring=Declined]")
    assert.strictEqual(await hook(page, "order").getAttribute("data-state"), "Started")
    await hook(page, "error").waitFor({ state: "visible" })
    assert.include(await hook(page, "error").innerText(), "declined")
    assert.isTrue(await hook(page, "pay").isVisible())
    assert.include(await hook(page, "pay").innerText(), "by card")
    assert.deepStrictEqual(problems, [])
    await context.close()
  })

  itWithBrowser("crypto: address, amount and QR code; polls to Processing then Paid as blocks arrive", async () => {
    await setup()
    const terminal = await addCryptoTerminal(client, { confirmations: 2 })
    const order = await newOrder({ currency: "ETH", orderAmount: "1", description: "Kettle" })
    const { context, page, problems } = await open()
    await page.goto(order.payUrl)
    await page.locator(`button[data-pay=terminal][data-terminal-id="${terminal.id}"]`).click()
    await orderState(page, "Started")
    await hook(page, "pay").click()
    const address = hook(page, "address")
    await address.waitFor({ state: "visible" })
    const shown = await page.locator("[data-role=address-value]").innerText()
    assert.match(shown, /^0x[0-9A-Fa-f]{40}$/)
    const info = await shop.gateOk("GET", "get_order_info", order.code)
    assert.strictEqual(shown, info.address.address)
    assert.include(await address.innerText(), "1.01 ETH")
    const qr = page.locator("[data-role=qr]")
    await page.waitForFunction(() => (globalThis as any).document.querySelector("[data-role=qr]")?.naturalWidth > 0)
    assert.isTrue(await qr.isVisible())
    // Live status: the page follows the chain by polling get_order_info.
    await blockOk(client, terminal.id, "p", 1, [{ txHash: "pagetx1", to: shown, amount: "1.01" }])
    await orderState(page, "Processing", 10_000)
    await blockOk(client, terminal.id, "p", 2)
    await orderState(page, "Paid", 10_000)
    assert.strictEqual((await shop.order(app, order.id)).state, "Paid")
    assert.deepStrictEqual(problems, [])
    await context.close()
  })

  itWithBrowser(
    "crypto: before any income the payer may switch back (cancel_crypto): Created, every method offered again",
    async () => {
      await setup()
      const terminal = await addCryptoTerminal(client, { confirmations: 2 })
      const order = await newOrder({ currency: "ETH", orderAmount: "1" })
      const { context, page, problems } = await open()
      await page.goto(order.payUrl)
      await page.locator(`button[data-pay=terminal][data-terminal-id="${terminal.id}"]`).click()
      await orderState(page, "Started")
      await hook(page, "pay").click()
      await hook(page, "address").waitFor({ state: "visible" })
      await page.locator("[data-role=cancel-crypto]").click()
      await orderState(page, "Created")
      assert.isFalse(await hook(page, "address").isVisible())
      assert.isTrue(await page.locator(`button[data-terminal-id="${terminal.id}"]`).isEnabled())
      assert.isFalse(await hook(page, "pay").isVisible(), "nothing chosen any more")
      assert.isNull((await shop.gateOk("GET", "get_order_info", order.code)).address)
      assert.deepStrictEqual(problems, [])
      await context.close()
    }
  )

  itWithBrowser(
    "expiry: the countdown reaches zero and the page shows Expired with every terminal disabled",
    async () => {
      const order = await newOrder({ expiresInSeconds: 3 })
      const { context, page, problems } = await open()
      await page.goto(order.payUrl)
      await page.locator(`button[data-pay=terminal][data-terminal-id="${internalTerminal}"]`).waitFor()
      assert.match(await page.locator("[data-role=countdown]").innerText(), /Expires in 0:0\d/)
      await orderState(page, "Expired", 15_000)
      assert.isTrue(await page.locator(`button[data-terminal-id="${internalTerminal}"]`).isDisabled())
      assert.isFalse(await hook(page, "pay").isVisible())
      assert.include(await page.locator("[data-role=notice]").innerText(), "expired")
      assert.deepStrictEqual(problems, [])
      await context.close()
    }
  )
})
