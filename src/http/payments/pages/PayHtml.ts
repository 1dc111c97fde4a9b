/**
 * The payment page's HTML (CONTRACT C16 "The payment page"): one document for `/pay` and `/pay-auth`,
 * rendered with the order's public fields so it reads well before its script runs, and the not-found
 * and sign-in pages. Everything it loads is same-origin (pay.css, pay.js, qr.svg): the CSP below
 * allows nothing else, no inline script or style among it.
 */
import type { OrderInfoOut } from "../../../../schema/Payments.ts"

/** Served on every page route: nothing from another origin, no inline code, no framing. */
export const pageSecurityHeaders = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store"
} as const

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => entities[c])

const shell = (title: string, body: string, bodyAttributes = "") => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/pay/pay.css">
</head>
<body${bodyAttributes}>
<main class="pay">
${body}
<footer class="pay-footer">Secure checkout</footer>
</main>
</body>
</html>
`

/** An error page: the message in `[data-pay=error]` (unknown code, sign-in required). */
export const errorPage = (title: string, message: string, link?: { href: string; text: string }) =>
  shell(
    title,
    `<section class="card">
<h1 class="title">${escapeHtml(title)}</h1>
<p class="error" data-pay="error" role="alert">${escapeHtml(message)}</p>
${link === undefined ? "" : `<p><a class="link" href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>`}
</section>`
  )

/**
 * The page of one order. `auth`: served as /pay-auth to a signed-in payer (the wallet pays from its
 * balance without leaving the page); the script reads it from `data-auth`. `sign-in`: /pay-auth without
 * a valid session — the order as /pay shows it, with a sign-in-needed notice and a link to /pay.
 */
export const orderPage = (info: OrderInfoOut, code: string, mode: "pay" | "auth" | "sign-in") => {
  const auth = mode === "auth"
  const signIn =
    mode === "sign-in"
      ? `<p class="notice" data-role="sign-in-needed">Sign in to your wallet to pay from its balance, or ` +
        `<a class="link" href="/pay?code=${escapeHtml(code)}">pay by another method</a>.</p>`
      : ""
  return shell(
    `Pay ${info.orderAmount} ${info.currency} to ${info.merchantName}`,
    `<section class="card order" data-pay="order" data-state="${escapeHtml(info.state)}" data-acquiring="${escapeHtml(
      info.acquiring?.status ?? ""
    )}" data-code="${escapeHtml(code)}" data-expires-at="${escapeHtml(info.expiresAt)}">
<header class="order-head">
<p class="merchant-label">Payment to</p>
<h1 class="merchant" data-pay="merchant">${escapeHtml(info.merchantName)}</h1>
<p class="description" data-pay="description">${escapeHtml(info.description ?? "")}</p>
</header>
<div class="total">
<span class="amount" data-pay="amount">${escapeHtml(info.orderAmount)}</span>
<span class="currency" data-pay="currency">${escapeHtml(info.currency)}</span>
</div>
<div class="status-row">
<span class="badge" data-role="state">${escapeHtml(info.state)}</span>
<span class="countdown" data-role="countdown" aria-live="polite"></span>
</div>
<p class="error" data-pay="error" role="alert" hidden></p>
<div class="notice" data-role="notice" aria-live="polite" hidden></div>
<section class="methods" data-role="methods">
<h2 class="section-title">Choose how to pay</h2>
${auth ? `<p class="signed-in" data-role="signed-in">Signed in: your wallet balance can pay this order.</p>` : signIn}
<div class="terminals" data-role="terminals"><p class="muted">Loading payment methods…</p></div>
</section>
<section class="summary" data-role="summary" hidden></section>
<section class="address" data-pay="address" hidden></section>
<button type="button" class="pay-button" data-pay="pay" hidden>Pay</button>
<a class="return-link" data-role="return" hidden>Return to the shop</a>
</section>
<script type="module" src="/pay/pay.js"></script>`,
    auth ? ` data-auth="1"` : ""
  )
}
