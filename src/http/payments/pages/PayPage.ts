/**
 * The universal payment page (CONTRACT C16 "The payment page", SPEC 1.4.0): `GET /pay?code=` for any
 * payer and `GET /pay-auth?code=` for a signed-in one (cookie `sid`; without a valid session it is the
 * same page, 200, in its sign-in-needed state with a link to /pay). Also the page's same-origin assets, read once at start: `/pay/pay.css`
 * and the ES modules `/pay/pay.js`, `/pay/pay-model.js`, `/pay/pay-view.js`. And the QR code of the
 * order's crypto address (`/pay/qr.svg?code=`, rendered here by `qrcode`). Plain router routes beside
 * the API: the page itself drives the public gate `/payment/v1/` from the browser. The envelope
 * middleware leaves these HTML answers as they are.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import QRCode from "qrcode"
import { WalletFlag } from "../../../../schema/Wallet.ts"
import { Credentials } from "../../../services/wallets/Credentials.ts"
import { PaymentOrders } from "../../../services/payments/PaymentOrders.ts"
import { errorPage, orderPage, pageSecurityHeaders } from "./PayHtml.ts"

const assets = join(import.meta.dirname, "assets")
const asset = (name: string) => readFileSync(join(assets, name), "utf8")

/** A code the gate could know: C16 codes are [A-Za-z0-9_-]; anything else is not found without a lookup. */
const plausibleCode = (code: string | null): code is string =>
  code !== null && code.length >= 1 && code.length <= 200 && /^[A-Za-z0-9_-]+$/.test(code)

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: pageSecurityHeaders })

const notFound = () =>
  html(
    errorPage(
      "Payment not found",
      "This payment link is not valid: no order has this code. Check the link the shop gave you."
    ),
    404
  )

export const PayPageRoutes = HttpRouter.use(
  Effect.fnUntraced(function* (router) {
    const orders = yield* PaymentOrders
    const credentials = yield* Credentials
    const css = asset("pay.css")
    // ES modules: pay.js imports the other two by relative path.
    const scripts = ["pay.js", "pay-model.js", "pay-view.js"].map((name) => [name, asset(name)] as const)
    const staticHeaders = { "cache-control": "no-cache", "x-content-type-options": "nosniff" }

    const codeOf = (request: HttpServerRequest.HttpServerRequest) =>
      new URL(request.url, "http://local").searchParams.get("code")

    /** The order's gate view, or none: an unknown or malformed code. */
    const lookup = (code: string | null) =>
      plausibleCode(code) ? Effect.option(orders.info(code)) : Effect.succeedNone

    const page = (auth: boolean) => (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const code = codeOf(request)
        const info = yield* lookup(code)
        if (Option.isNone(info) || code === null) return notFound()
        if (!auth) return html(orderPage(info.value, code, "pay"))
        // /pay-auth without a valid session: still the order's page (200), in its sign-in-needed state.
        const sid = request.cookies["sid"]
        const session = sid === undefined ? Option.none() : yield* credentials.session(sid)
        // A Deleted wallet's session is no session (C19 §5).
        const live = Option.isSome(session) && (session.value.flags & WalletFlag.Deleted) === 0
        return html(orderPage(info.value, code, live ? "auth" : "sign-in"))
      })

    yield* router.add("GET", "/pay", page(false))
    yield* router.add("GET", "/pay-auth", page(true))
    yield* router.add(
      "GET",
      "/pay/pay.css",
      HttpServerResponse.text(css, { contentType: "text/css; charset=utf-8", headers: staticHeaders })
    )
    for (const [name, text] of scripts)
      yield* router.add(
        "GET",
        `/pay/${name}`,
        HttpServerResponse.text(text, { contentType: "text/javascript; charset=utf-8", headers: staticHeaders })
      )
    /** The QR code of the order's crypto address (with its memo for memo networks); 404 without one. */
    yield* router.add("GET", "/pay/qr.svg", (request) =>
      Effect.gen(function* () {
        const info = yield* lookup(codeOf(request))
        const address = Option.isSome(info) ? info.value.address : null
        if (address === null)
          return HttpServerResponse.text("no crypto address", { status: 404, headers: staticHeaders })
        const svg = yield* Effect.promise(() =>
          QRCode.toString(address.address, { type: "svg", errorCorrectionLevel: "M", margin: 1 })
        )
        return HttpServerResponse.text(svg, {
          contentType: "image/svg+xml",
          headers: { ...pageSecurityHeaders, "cache-control": "no-store" }
        })
      })
    )
  })
)
