/**
 * Headless Chromium for the payment page's tests (playwright-core drives the system browser; it never
 * downloads one). Debian's `chromium` package at /usr/bin/chromium (or CHROMIUM_PATH). Without it the
 * browser tests skip LOUDLY, naming the package to install; CI (.ci/run) installs it first, so there
 * they always run.
 */
import { it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { chromium, type Browser, type BrowserContext } from "playwright-core"
import type { TestContext } from "vitest"

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
export const hasChromium = (): boolean => existsSync(chromiumPath)

const skipNotice = () =>
  console.warn(
    `SKIPPED browser test: no Chromium at ${chromiumPath}. Install it with \`apt-get install chromium\` ` +
      "(or set CHROMIUM_PATH); CI installs it and never skips these."
  )

/** A browser test: runs with Chromium, otherwise skipped with a loud notice. `body` gets vitest's context (`skip`). */
export const itWithBrowser = (name: string, body: (context: TestContext) => Promise<void>, timeout?: number) => {
  if (hasChromium()) return it(name, (context) => body(context), timeout)
  return it.skip(name, () => {
    skipNotice()
  })
}
if (!hasChromium()) skipNotice()

export const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** Launches the system Chromium; launch() gives it a fresh temporary profile and removes it on close. */
export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs })

/** A fresh browser context (no cookies) at `viewport` width; `sid` signs the payer in on `base`. */
export const newPayer = async (
  browser: Browser,
  base: string,
  options: { sid?: string; width?: number } = {}
): Promise<BrowserContext> => {
  const context = await browser.newContext({ viewport: { width: options.width ?? 390, height: 844 } })
  if (options.sid !== undefined) await context.addCookies([{ name: "sid", value: options.sid, url: base }])
  return context
}
