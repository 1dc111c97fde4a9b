/**
 * The sandbox acquirer's hosted checkout (CONTRACT C16 "Built-in card acquiring"): GET
 * /acquirer/v1/checkout/{acquiringId} → a self-contained HTML page (CSP default-src 'self'; its script and style are
 * the same-origin /acquirer/v1/checkout.js and checkout.css, nothing inline, nothing from another origin), and POST the
 * same path with JSON { cardNumber, expiry, cvc } → { acquiringId, outcome, redirectUrl }. The page's
 * script posts the form and then goes to redirectUrl. Pages are 200 HTML; failures are error envelopes.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { AppConfigService } from "../../../platform/Config.ts"
import { type CheckoutSubmission, SandboxCheckout } from "../../../services/payments/acquiring/SandboxAcquirer.ts"
import { answer, errorResponse } from "./Responses.ts"

const securityHeaders = {
  "content-security-policy": "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const page = (p: {
  acquiringId: string
  amount: string
  currency: string
  description: string | null
  status: string
}) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Card payment (sandbox)</title>
<link rel="stylesheet" href="/acquirer/v1/checkout.css">
</head>
<body>
<h1>Card payment <small>(sandbox acquirer)</small></h1>
<p data-checkout="summary">Pay <strong data-checkout="amount">${escape(p.amount)}</strong> <span data-checkout="currency">${escape(p.currency)}</span></p>
${p.description === null ? "" : `<p data-checkout="description">${escape(p.description)}</p>`}
<form data-checkout="form" data-acquiring-id="${escape(p.acquiringId)}" data-status="${escape(p.status)}" novalidate>
<label>Card number <input name="cardNumber" inputmode="numeric" autocomplete="cc-number" required></label>
<label>Expiry (MM/YY) <input name="expiry" placeholder="MM/YY" autocomplete="cc-exp" required></label>
<label>CVC <input name="cvc" inputmode="numeric" autocomplete="cc-csc" required></label>
<button type="submit">Pay ${escape(p.amount)} ${escape(p.currency)}</button>
</form>
<p data-checkout="error" role="alert"></p>
<p><small>Test cards: 4242 4242 4242 4242 approves; 4000 0000 0000 0002 declines.</small></p>
<script src="/acquirer/v1/checkout.js"></script>
</body>
</html>
`

/** The page's look, same-origin (the CSP allows no inline style). */
const style = `body{font-family:system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.6rem 0}input{width:100%;padding:.4rem;font-size:1rem}button{margin-top:1rem;padding:.6rem 1.2rem;font-size:1rem}[data-checkout=error]{color:#b00020}
`

const script = `"use strict";
(function () {
  var form = document.querySelector("[data-checkout=form]");
  var error = document.querySelector("[data-checkout=error]");
  if (!form) return;
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    error.textContent = "";
    var button = form.querySelector("button[type=submit]");
    button.disabled = true;
    var body = JSON.stringify({
      cardNumber: form.elements.cardNumber.value,
      expiry: form.elements.expiry.value,
      cvc: form.elements.cvc.value
    });
    fetch(window.location.pathname, { method: "POST", headers: { "content-type": "application/json" }, body: body })
      .then(function (response) { return response.json(); })
      .then(function (reply) {
        if (reply && reply.result && reply.result.redirectUrl) { window.location.assign(reply.result.redirectUrl); return; }
        error.textContent = (reply && reply.error && reply.error.message) || "payment failed";
        button.disabled = false;
      })
      .catch(function () { error.textContent = "network error, try again"; button.disabled = false; });
  });
})();
`

const idOf = Effect.map(HttpRouter.params, (params) => params.acquiringId ?? "")

export const CheckoutRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    // C19 §1: with ACQUIRER=off the sandbox's pages do not exist (every /acquirer/v1/* path is 404).
    if ((yield* AppConfigService).acquirer !== "sandbox") return
    const checkout = yield* SandboxCheckout
    yield* router.add(
      "GET",
      "/acquirer/v1/checkout.js",
      HttpServerResponse.text(script, { contentType: "text/javascript; charset=utf-8", headers: securityHeaders })
    )
    yield* router.add(
      "GET",
      "/acquirer/v1/checkout.css",
      HttpServerResponse.text(style, { contentType: "text/css; charset=utf-8", headers: securityHeaders })
    )
    yield* router.add(
      "GET",
      "/acquirer/v1/checkout/:acquiringId",
      Effect.gen(function* () {
        const acquiringId = yield* idOf
        return yield* checkout.payment(acquiringId).pipe(
          Effect.map((p) =>
            HttpServerResponse.html(
              page({
                acquiringId: p.acquiringId,
                amount: p.amount,
                currency: p.currency,
                description: p.description,
                status: p.status
              })
            ).pipe(HttpServerResponse.setHeaders(securityHeaders))
          ),
          Effect.catch(errorResponse)
        )
      })
    )
    yield* router.add("POST", "/acquirer/v1/checkout/:acquiringId", (request) =>
      Effect.gen(function* () {
        const acquiringId = yield* idOf
        const text = yield* request.text
        let card: unknown
        try {
          card = JSON.parse(text)
        } catch {
          card = undefined
        }
        // The fields are checked by the sandbox after the session (C16: a closed session is 10311 first).
        if (card === null || typeof card !== "object")
          return yield* errorResponse({
            _tag: "InvalidRequest",
            message: "body: a JSON object { cardNumber, expiry, cvc }"
          })
        return yield* answer(checkout.submit(acquiringId, card as CheckoutSubmission))
      })
    )
  })
)
