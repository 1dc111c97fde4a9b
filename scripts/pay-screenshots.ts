/**
 * `npm run screenshots`: the payment page's pictures for the docs. Starts the service (embedded PGlite in
 * a temporary directory, free ports), creates a demo shop, terminals and an order, opens its payUrl in
 * the system Chromium (playwright-core; CHROMIUM_PATH, default /usr/bin/chromium) and writes
 * docs/img/pay-390.png (a phone) and docs/img/pay-1280.png (a desktop). Stops the service at the end.
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import net from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { chromium } from "playwright-core"

const root = resolve(import.meta.dirname, "..")
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

const freePort = () =>
  new Promise<number>((done) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => done(port))
    })
  })

const main = async () => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const key = "shots-" + randomBytes(16).toString("hex")
  const dataDir = mkdtempSync(join(tmpdir(), "pay-shots-"))
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    MONITORING_PORT: String(await freePort()),
    SERVICE_KEYS: key,
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: base,
    // The page shows a Card terminal: with the default ACQUIRER=off it would be unavailable (C19 §1).
    ACQUIRER: "sandbox",
    LOG_LEVEL: "warn"
  }
  delete env.DATABASE_URL
  const child = spawn(process.execPath, [join(root, "scripts/start.mjs")], { cwd: root, env, stdio: "inherit" })
  try {
    for (let tries = 0; ; tries++) {
      try {
        if ((await fetch(`${base}/core/v1/get_info`, { signal: AbortSignal.timeout(2_000) })).ok) break
      } catch {
        /* not yet */
      }
      if (tries > 900) throw new Error("the service did not start")
      await new Promise((r) => setTimeout(r, 100))
    }
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const reply = await fetch(base + path, {
        method,
        headers: { "content-type": "application/json", ...headers },
        body: body === undefined ? undefined : JSON.stringify(body)
      })
      const envelope: any = await reply.json()
      if (!reply.ok) throw new Error(`${path}: ${JSON.stringify(envelope)}`)
      return envelope.result
    }
    const priv = (action: string, body?: unknown) =>
      call("POST", `/private/v1/${action}`, body, { authorization: `Bearer ${key}` })
    const merchant = await priv("create_wallet", { clientId: "9001", name: "Shop" })
    const fees = await priv("create_wallet", { clientId: "9002", name: "Fees" })
    const app = await priv("create_app", { walletId: merchant.id, name: "Northwind Coffee Roasters" })
    await priv("set_tariffs", [
      { txClass: "Payment", currency: "USDT", feeFixed: "0.3", feePercent: "1", profitWalletId: fees.id }
    ])
    const network = (typeNetwork: number, displayName: string, extra: Record<string, unknown> = {}) =>
      priv("add_network", {
        typeNetwork,
        typeContract: 0,
        currencyId: "USDT",
        decimals: 6,
        displayName,
        flags: 1,
        defaultHotAddress: null,
        defaultSystemWalletId: null,
        walletGroups: [],
        ...extra
      })
    await network(100, "Visa, Mastercard")
    await network(2, "USDT on Ethereum", { typeContract: 1, addressContract: "0x" + "ab".repeat(20) })
    await network(3, "USDT on Tron", { typeContract: 1, addressContract: "T" + "a".repeat(33) })
    const order = await call(
      "POST",
      `/payorders/v1/put_payment_order?app_id=${app.appId}`,
      {
        currency: "USDT",
        orderAmount: "42.50",
        externalId: "demo-1",
        description: "Ethiopia Yirgacheffe, 2 × 250 g, whole bean",
        expiresInSeconds: 1800
      },
      { pkey: app.pkey }
    )
    mkdirSync(join(root, "docs", "img"), { recursive: true })
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"]
    })
    try {
      for (const [width, height] of [
        [390, 844],
        [1280, 900]
      ]) {
        const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: width < 600 ? 2 : 1 })
        await page.goto(order.payUrl)
        await page.locator("button[data-pay=terminal]").first().waitFor()
        await page.locator("button[data-pay=terminal]").nth(1).click()
        await page.locator("[data-pay=pay]").waitFor({ state: "visible" })
        const file = join(root, "docs", "img", `pay-${width}.png`)
        await page.screenshot({ path: file, fullPage: true })
        console.log(`wrote ${file}`)
        await page.close()
      }
    } finally {
      await browser.close()
    }
  } finally {
    child.kill("SIGTERM")
    await new Promise((done) => child.once("exit", done))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
