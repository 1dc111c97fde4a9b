// The payment page's view (see pay.js): renders the state object `s` into the C16 hooks. It reads the
// state and never calls the gate; what the payer does goes to `handlers` (choose, cancelCrypto).
import { OPEN, PAID, isOpen, kindOf, lockedId, selectedTerminal } from "./pay-model.js"

const $ = (selector) => document.querySelector(selector)

const make = (tag, className, text) => {
  const node = document.createElement(tag)
  if (className) node.className = className
  if (text !== undefined && text !== null) node.textContent = String(text)
  return node
}

const row = (dl, label, value, className) => {
  dl.append(make("dt", "", label), make("dd", className || "", value))
}

const two = (n) => String(n).padStart(2, "0")

/** The page's elements, or null on a page without an order (the 404 and 401 pages). */
export const elementsOf = () => {
  const order = $("[data-pay=order]")
  if (order === null) return null
  return {
    order,
    amount: $("[data-pay=amount]"),
    currency: $("[data-pay=currency]"),
    description: $("[data-pay=description]"),
    merchant: $("[data-pay=merchant]"),
    error: $("[data-pay=error]"),
    address: $("[data-pay=address]"),
    pay: $("[data-pay=pay]"),
    state: $("[data-role=state]"),
    countdown: $("[data-role=countdown]"),
    notice: $("[data-role=notice]"),
    methods: $("[data-role=methods]"),
    terminals: $("[data-role=terminals]"),
    summary: $("[data-role=summary]"),
    signedIn: $("[data-role=signed-in]"),
    back: $("[data-role=return]")
  }
}

export const createView = (el, s, handlers) => {
  const orderEl = el.order

  const showError = (message) => {
    el.error.textContent = message
    el.error.hidden = message === ""
  }

  const renderOrder = () => {
    orderEl.dataset.state = s.info.state
    orderEl.dataset.acquiring = s.info.acquiring ? s.info.acquiring.status : ""
    el.amount.textContent = s.info.orderAmount
    el.currency.textContent = s.info.currency
    el.description.textContent = s.info.description || ""
    el.merchant.textContent = s.info.merchantName
    el.state.textContent =
      s.info.state === "Started" ? "Awaiting payment" : s.info.state === "Created" ? "Awaiting payment" : s.info.state
    el.state.className =
      "badge" +
      (PAID.includes(s.info.state)
        ? " is-paid"
        : s.info.state === "Processing"
          ? " is-waiting"
          : OPEN.includes(s.info.state)
            ? ""
            : " is-closed")
    document.title = `${PAID.includes(s.info.state) ? "Paid" : "Pay"} ${s.info.orderAmount} ${s.info.currency} · ${s.info.merchantName}`
  }

  const renderNotice = () => {
    let text = ""
    let tone = ""
    if (s.info.kind !== "PaymentOrder") {
      text = `This is a payout from ${s.info.merchantName}. It is claimed through the merchant, not on this page.`
    } else if (PAID.includes(s.info.state)) {
      const paid = s.info.totalToPay && s.info.payCurrency ? ` ${s.info.totalToPay} ${s.info.payCurrency} paid.` : ""
      text = `Payment complete.${paid} Thank you — the merchant has received your payment.`
      tone = "is-paid"
    } else if (s.info.state === "Processing") {
      const a = s.info.address
      text = a
        ? `Payment seen on the network: ${a.received} ${a.currency} received, ${a.confirmations} of ${a.confirmationsRequired} confirmations. This page updates by itself.`
        : "Payment in progress. This page updates by itself."
    } else if (s.info.state === "Expired") {
      text = "This payment has expired. Nothing was charged. Ask the shop for a new payment link."
      tone = "is-closed"
    } else if (s.info.state === "Canceled") {
      text = "The merchant canceled this payment. Nothing was charged."
      tone = "is-closed"
    } else if (s.info.state === "Failed") {
      text = "This payment failed."
      tone = "is-closed"
    } else if (s.info.acquiring && s.info.acquiring.status === "Pending") {
      text = "Waiting for the card payment to be confirmed. This page updates by itself."
    } else if (s.info.acquiring && s.info.acquiring.status === "Approved") {
      text = "Card approved. Completing the payment…"
    }
    el.notice.textContent = text
    el.notice.className = "notice" + (tone ? " " + tone : "")
    el.notice.hidden = text === ""
    const url = s.info.returnUrl
    if (url && /^https?:\/\//i.test(url)) {
      el.back.href = url
      el.back.textContent = PAID.includes(s.info.state) ? "Return to the shop" : "Back to the shop"
      el.back.hidden = false
    } else {
      el.back.hidden = true
    }
  }

  const terminalTitle = (t) =>
    kindOf(t) === "internal" ? "Wallet balance" : kindOf(t) === "card" ? "Card" : t.displayName || t.currency

  const terminalSubtitle = (t) => {
    if (kindOf(t) === "internal") return t.requiresAuth && !s.auth ? "Sign-in needed" : "Pay from your balance"
    if (kindOf(t) === "card") return t.displayName && t.displayName !== "Card" ? t.displayName : "Visa, Mastercard"
    return `Crypto · ${t.currency}`
  }

  const iconText = (t) => (kindOf(t) === "internal" ? "W" : kindOf(t) === "card" ? "CARD" : t.currency.slice(0, 4))

  const renderTerminals = () => {
    const open = isOpen(s)
    // Past Created/Started the buttons stay in the document, disabled, under a hidden section.
    el.methods.hidden = !open
    el.terminals.replaceChildren()
    if (s.terminals.length === 0) {
      el.terminals.append(make("p", "muted", "No payment method is available for this order."))
      return
    }
    const selected = lockedId(s) || s.chosen
    for (const t of s.terminals) {
      const button = make("button", "terminal")
      button.type = "button"
      button.dataset.pay = "terminal"
      button.dataset.terminalId = String(t.id)
      button.dataset.kind = kindOf(t)
      button.disabled = !(t.available && open) || s.busy
      if (String(t.id) === selected) {
        button.classList.add("is-selected")
        button.setAttribute("aria-pressed", "true")
      } else button.setAttribute("aria-pressed", "false")
      const main = make("span", "terminal-main")
      main.append(make("span", "terminal-icon", iconText(t)))
      const text = make("span", "terminal-text")
      text.append(make("span", "terminal-name", terminalTitle(t)), make("span", "terminal-sub", terminalSubtitle(t)))
      main.append(text)
      const price = make("span", "terminal-price")
      if (t.quote) {
        price.append(document.createTextNode(`${t.quote.totalToPay} ${t.currency}`))
        price.append(make("small", "", Number(t.quote.fee) === 0 ? "no fee" : `incl. fee ${t.quote.fee}`))
      } else if (!t.available) {
        price.append(make("small", "", "unavailable"))
      }
      button.append(main, price)
      button.addEventListener("click", () => handlers.choose(t))
      el.terminals.append(button)
    }
  }

  const renderSummary = () => {
    const t = selectedTerminal(s)
    if (!isOpen(s) || t === null) {
      el.summary.hidden = true
      return
    }
    const locked = lockedId(s) !== null && s.info.totalToPay !== null
    const quote = locked
      ? { payAmount: s.info.payAmount, fee: s.info.fee, totalToPay: s.info.totalToPay, rate: s.info.rate }
      : t.quote
    if (!quote) {
      el.summary.hidden = true
      return
    }
    const payCurrency = locked ? s.info.payCurrency : t.currency
    const dl = make("dl")
    row(dl, "Amount", `${quote.payAmount} ${payCurrency}`)
    row(dl, "Fee", `${quote.fee} ${payCurrency}`)
    if (payCurrency !== s.info.currency && quote.rate)
      row(dl, "Rate", `1 ${s.info.currency} = ${quote.rate} ${payCurrency}`)
    row(dl, "Total to pay", `${quote.totalToPay} ${payCurrency}`, "grand")
    dl.lastChild.previousSibling.classList.add("grand")
    el.summary.replaceChildren(dl)
    el.summary.hidden = false
  }

  const renderAddress = () => {
    const a = s.info.address
    if (!a || !(isOpen(s) || s.info.state === "Processing")) {
      el.address.hidden = true
      el.address.replaceChildren()
      return
    }
    const title = make("h3", "", `Send exactly ${a.amount} ${a.currency}`)
    const qr = make("img", "qr")
    qr.alt = "QR code of the payment address"
    qr.width = 200
    qr.height = 200
    qr.dataset.role = "qr"
    qr.src = `/pay/qr.svg?code=${encodeURIComponent(s.code)}&address=${encodeURIComponent(a.address)}`
    const address = make("code", "address-text", a.address)
    address.dataset.role = "address-value"
    const dl = make("dl")
    row(dl, "Amount", `${a.amount} ${a.currency}`)
    if (a.memo) row(dl, "Memo (required)", a.memo)
    const t = selectedTerminal(s)
    if (t && t.displayName) row(dl, "Network", t.displayName)
    row(dl, "Received", `${a.received} ${a.currency}`)
    row(dl, "Confirmations", `${a.confirmations} / ${a.confirmationsRequired}`)
    const old = el.address.querySelector("[data-role=qr]")
    const parts = [title, old && old.src === new URL(qr.src, location.href).href ? old : qr, address, dl]
    // Nothing received yet: the payer may still switch (cancel_crypto brings the order back to Created).
    if (s.info.state === "Started" && a.received === "0") {
      const other = make("button", "secondary-button", "Use another method")
      other.type = "button"
      other.dataset.role = "cancel-crypto"
      other.disabled = s.busy
      other.addEventListener("click", () => handlers.cancelCrypto())
      parts.push(other)
    }
    el.address.replaceChildren(...parts)
    el.address.hidden = false
  }

  const renderPayButton = () => {
    const t = selectedTerminal(s)
    if (!isOpen(s) || t === null) {
      el.pay.hidden = true
      return
    }
    const kind = kindOf(t)
    const total =
      s.info.totalToPay && lockedId(s) !== null
        ? `${s.info.totalToPay} ${s.info.payCurrency}`
        : t.quote
          ? `${t.quote.totalToPay} ${t.currency}`
          : ""
    let label
    if (kind === "internal") label = total ? `Pay ${total} from wallet` : "Pay from wallet"
    else if (kind === "card")
      label =
        s.info.acquiring && s.info.acquiring.status === "Pending"
          ? "Continue to card checkout"
          : total
            ? `Pay ${total} by card`
            : "Pay by card"
    else label = s.info.address ? "I have sent it — check now" : "Show payment address"
    el.pay.textContent = s.busy ? "Please wait…" : label
    el.pay.dataset.kind = kind
    el.pay.disabled = s.busy
    el.pay.hidden = false
  }

  const renderCountdown = () => {
    if (s.info === null || !isOpen(s) || !s.info.expiresAt) {
      el.countdown.textContent = ""
      return null
    }
    const left = Math.max(0, Math.ceil((Date.parse(s.info.expiresAt) - Date.now()) / 1000))
    const h = Math.floor(left / 3600)
    const m = Math.floor((left % 3600) / 60)
    const sec = left % 60
    el.countdown.textContent = left === 0 ? "Expiring…" : `Expires in ${h > 0 ? `${h}:${two(m)}` : m}:${two(sec)}`
    el.countdown.classList.toggle("is-soon", left < 120)
    return left
  }

  /** Everything from the state. */
  const render = () => {
    if (s.info === null) return
    renderOrder()
    renderNotice()
    renderTerminals()
    renderSummary()
    renderAddress()
    renderPayButton()
    renderCountdown()
  }

  return { render, renderCountdown, showError }
}
