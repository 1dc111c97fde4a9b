// The payment page's script (CONTRACT C16 "The payment page"). It drives the public gate /payment/v1/ of
// this origin: shows the order, lists get_terminals with their quotes, starts the order on the chosen
// terminal, pays internal (the origin's `sid` cookie), by card (to the checkout page) or by crypto (the
// order's address and its QR code), polls get_order_info while a payment is in flight, counts down to
// expiry and shows the gate's error messages in [data-pay=error]. No framework, no other origin.
;(function () {
  "use strict"

  const POLL_MS = 1500
  const OPEN = ["Created", "Started"]
  const PAID = ["Paid", "PartiallyRefunded", "Refunded"]
  const INTERNAL = 240
  const CARD = 100

  const $ = (selector) => document.querySelector(selector)
  const orderEl = $("[data-pay=order]")
  if (orderEl === null) return
  const code = orderEl.dataset.code || new URLSearchParams(location.search).get("code") || ""
  const auth = document.body.dataset.auth === "1"
  const el = {
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

  let info = null
  let terminals = []
  let chosen = null
  let busy = false
  let pollTimer = null
  let expiryAskedAt = 0
  let lastState = null

  // ---- the gate ----------------------------------------------------------------------------------

  class GateError extends Error {
    constructor(message, status, code) {
      super(message)
      this.status = status
      this.code = code
    }
  }

  const gate = async (method, action, body) => {
    let response
    try {
      response = await fetch(`/payment/v1/${action}?code=${encodeURIComponent(code)}`, {
        method,
        credentials: "same-origin",
        cache: "no-store",
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body)
      })
    } catch {
      throw new GateError("The payment service cannot be reached. Check your connection and try again.", 0, 0)
    }
    let envelope = null
    try {
      envelope = await response.json()
    } catch {
      envelope = null
    }
    if (envelope === null || typeof envelope !== "object") {
      throw new GateError(`The payment service answered ${response.status}. Try again.`, response.status, 0)
    }
    if (envelope.error) throw new GateError(envelope.error.message, response.status, envelope.error.code)
    return envelope.result
  }

  // ---- helpers -----------------------------------------------------------------------------------

  const make = (tag, className, text) => {
    const node = document.createElement(tag)
    if (className) node.className = className
    if (text !== undefined && text !== null) node.textContent = String(text)
    return node
  }

  const kindOf = (terminal) =>
    terminal.typeNetwork === INTERNAL ? "internal" : terminal.typeNetwork === CARD ? "card" : "crypto"

  const isOpen = () => info !== null && info.kind === "PaymentOrder" && OPEN.includes(info.state)

  const lockedId = () => (info !== null && info.terminal ? String(info.terminal.id) : null)

  const selectedTerminal = () => {
    const id = lockedId() || chosen
    return id === null ? null : terminals.find((t) => String(t.id) === id) || (info && info.terminal) || null
  }

  const inFlight = () =>
    info !== null &&
    (info.state === "Processing" ||
      (info.state === "Started" &&
        ((info.acquiring && info.acquiring.status === "Pending") ||
          (info.acquiring && info.acquiring.status === "Approved") ||
          info.address !== null)))

  const showError = (message) => {
    el.error.textContent = message
    el.error.hidden = message === ""
  }

  const reportFailure = (error, action) => {
    let message = error && error.message ? error.message : String(error)
    if (action === "pay_internal" && error.status === 401) {
      message = `${message}. Sign in to your wallet to pay from its balance, or choose another method.`
    }
    showError(message)
  }

  // ---- rendering ---------------------------------------------------------------------------------

  const renderOrder = () => {
    orderEl.dataset.state = info.state
    orderEl.dataset.acquiring = info.acquiring ? info.acquiring.status : ""
    el.amount.textContent = info.orderAmount
    el.currency.textContent = info.currency
    el.description.textContent = info.description || ""
    el.merchant.textContent = info.merchantName
    el.state.textContent =
      info.state === "Started" ? "Awaiting payment" : info.state === "Created" ? "Awaiting payment" : info.state
    el.state.className =
      "badge" +
      (PAID.includes(info.state)
        ? " is-paid"
        : info.state === "Processing"
          ? " is-waiting"
          : OPEN.includes(info.state)
            ? ""
            : " is-closed")
    document.title = `${PAID.includes(info.state) ? "Paid" : "Pay"} ${info.orderAmount} ${info.currency} · ${info.merchantName}`
  }

  const renderNotice = () => {
    let text = ""
    let tone = ""
    if (info.kind !== "PaymentOrder") {
      text = `This is a payout from ${info.merchantName}. It is claimed through the merchant, not on this page.`
    } else if (PAID.includes(info.state)) {
      const paid = info.totalToPay && info.payCurrency ? ` ${info.totalToPay} ${info.payCurrency} paid.` : ""
      text = `Payment complete.${paid} Thank you — the merchant has received your payment.`
      tone = "is-paid"
    } else if (info.state === "Processing") {
      const a = info.address
      text = a
        ? `Payment seen on the network: ${a.received} ${a.currency} received, ${a.confirmations} of ${a.confirmationsRequired} confirmations. This page updates by itself.`
        : "Payment in progress. This page updates by itself."
    } else if (info.state === "Expired") {
      text = "This payment has expired. Nothing was charged. Ask the shop for a new payment link."
      tone = "is-closed"
    } else if (info.state === "Canceled") {
      text = "The merchant canceled this payment. Nothing was charged."
      tone = "is-closed"
    } else if (info.state === "Failed") {
      text = "This payment failed."
      tone = "is-closed"
    } else if (info.acquiring && info.acquiring.status === "Pending") {
      text = "Waiting for the card payment to be confirmed. This page updates by itself."
    } else if (info.acquiring && info.acquiring.status === "Approved") {
      text = "Card approved. Completing the payment…"
    }
    el.notice.textContent = text
    el.notice.className = "notice" + (tone ? " " + tone : "")
    el.notice.hidden = text === ""
    const url = info.returnUrl
    if (url && /^https?:\/\//i.test(url)) {
      el.back.href = url
      el.back.textContent = PAID.includes(info.state) ? "Return to the shop" : "Back to the shop"
      el.back.hidden = false
    } else {
      el.back.hidden = true
    }
  }

  const terminalTitle = (t) =>
    kindOf(t) === "internal" ? "Wallet balance" : kindOf(t) === "card" ? "Card" : t.displayName || t.currency

  const terminalSubtitle = (t) => {
    if (kindOf(t) === "internal") return t.requiresAuth && !auth ? "Sign-in needed" : "Pay from your balance"
    if (kindOf(t) === "card") return t.displayName && t.displayName !== "Card" ? t.displayName : "Visa, Mastercard"
    return `Crypto · ${t.currency}`
  }

  const iconText = (t) => (kindOf(t) === "internal" ? "W" : kindOf(t) === "card" ? "CARD" : t.currency.slice(0, 4))

  const renderTerminals = () => {
    const open = isOpen()
    // Past Created/Started the buttons stay in the document, disabled, under a hidden section.
    el.methods.hidden = !open
    el.terminals.replaceChildren()
    if (terminals.length === 0) {
      el.terminals.append(make("p", "muted", "No payment method is available for this order."))
      return
    }
    const selected = lockedId() || chosen
    for (const t of terminals) {
      const button = make("button", "terminal")
      button.type = "button"
      button.dataset.pay = "terminal"
      button.dataset.terminalId = String(t.id)
      button.dataset.kind = kindOf(t)
      button.disabled = !(t.available && open) || busy
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
      button.addEventListener("click", () => choose(t))
      el.terminals.append(button)
    }
  }

  const row = (dl, label, value, className) => {
    const dt = make("dt", "", label)
    const dd = make("dd", className || "", value)
    dl.append(dt, dd)
  }

  const renderSummary = () => {
    const t = selectedTerminal()
    if (!isOpen() || t === null) {
      el.summary.hidden = true
      return
    }
    const locked = lockedId() !== null && info.totalToPay !== null
    const quote = locked
      ? { payAmount: info.payAmount, fee: info.fee, totalToPay: info.totalToPay, rate: info.rate }
      : t.quote
    if (!quote) {
      el.summary.hidden = true
      return
    }
    const payCurrency = locked ? info.payCurrency : t.currency
    const dl = make("dl")
    row(dl, "Amount", `${quote.payAmount} ${payCurrency}`)
    row(dl, "Fee", `${quote.fee} ${payCurrency}`)
    if (payCurrency !== info.currency && quote.rate)
      row(dl, "Rate", `1 ${info.currency} = ${quote.rate} ${payCurrency}`)
    row(dl, "Total to pay", `${quote.totalToPay} ${payCurrency}`, "grand")
    dl.lastChild.previousSibling.classList.add("grand")
    el.summary.replaceChildren(dl)
    el.summary.hidden = false
  }

  const renderAddress = () => {
    const a = info.address
    if (!a || !(isOpen() || info.state === "Processing")) {
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
    qr.src = `/pay/qr.svg?code=${encodeURIComponent(code)}&address=${encodeURIComponent(a.address)}`
    const address = make("code", "address-text", a.address)
    address.dataset.role = "address-value"
    const dl = make("dl")
    row(dl, "Amount", `${a.amount} ${a.currency}`)
    if (a.memo) row(dl, "Memo (required)", a.memo)
    const t = selectedTerminal()
    if (t && t.displayName) row(dl, "Network", t.displayName)
    row(dl, "Received", `${a.received} ${a.currency}`)
    row(dl, "Confirmations", `${a.confirmations} / ${a.confirmationsRequired}`)
    const old = el.address.querySelector("[data-role=qr]")
    const parts = [title, old && old.src === new URL(qr.src, location.href).href ? old : qr, address, dl]
    // Nothing received yet: the payer may still switch (cancel_crypto brings the order back to Created).
    if (info.state === "Started" && a.received === "0") {
      const other = make("button", "secondary-button", "Use another method")
      other.type = "button"
      other.dataset.role = "cancel-crypto"
      other.disabled = busy
      other.addEventListener("click", () =>
        act("cancel_crypto", async () => {
          const back = await gate("POST", "cancel_crypto", {})
          chosen = null
          lastState = null
          await apply(back)
        })
      )
      parts.push(other)
    }
    el.address.replaceChildren(...parts)
    el.address.hidden = false
  }

  const renderPayButton = () => {
    const t = selectedTerminal()
    if (!isOpen() || t === null) {
      el.pay.hidden = true
      return
    }
    const kind = kindOf(t)
    const total =
      info.totalToPay && lockedId() !== null
        ? `${info.totalToPay} ${info.payCurrency}`
        : t.quote
          ? `${t.quote.totalToPay} ${t.currency}`
          : ""
    let label
    if (kind === "internal") label = total ? `Pay ${total} from wallet` : "Pay from wallet"
    else if (kind === "card")
      label =
        info.acquiring && info.acquiring.status === "Pending"
          ? "Continue to card checkout"
          : total
            ? `Pay ${total} by card`
            : "Pay by card"
    else label = info.address ? "I have sent it — check now" : "Show payment address"
    el.pay.textContent = busy ? "Please wait…" : label
    el.pay.dataset.kind = kind
    el.pay.disabled = busy
    el.pay.hidden = false
  }

  const render = () => {
    if (info === null) return
    renderOrder()
    renderNotice()
    renderTerminals()
    renderSummary()
    renderAddress()
    renderPayButton()
    renderCountdown()
  }

  // ---- countdown and polling ---------------------------------------------------------------------

  const two = (n) => String(n).padStart(2, "0")

  const renderCountdown = () => {
    if (info === null || !isOpen() || !info.expiresAt) {
      el.countdown.textContent = ""
      return
    }
    const left = Math.max(0, Math.ceil((Date.parse(info.expiresAt) - Date.now()) / 1000))
    const h = Math.floor(left / 3600)
    const m = Math.floor((left % 3600) / 60)
    const s = left % 60
    el.countdown.textContent = left === 0 ? "Expiring…" : `Expires in ${h > 0 ? `${h}:${two(m)}` : m}:${two(s)}`
    el.countdown.classList.toggle("is-soon", left < 120)
    // Past expiresAt the gate reads Expired at once: ask it (at the polling pace) until it says so.
    if (left === 0 && !busy && Date.now() - expiryAskedAt >= POLL_MS) {
      expiryAskedAt = Date.now()
      refresh()
    }
  }

  const schedulePoll = () => {
    if (pollTimer !== null) clearTimeout(pollTimer)
    pollTimer = null
    if (inFlight()) pollTimer = setTimeout(() => refresh(), POLL_MS)
  }

  const apply = async (next) => {
    info = next
    if (lastState !== info.state) {
      lastState = info.state
      if (isOpen()) {
        try {
          terminals = await gate("GET", "get_terminals")
        } catch (error) {
          reportFailure(error)
        }
      }
    }
    if (info.acquiring && info.acquiring.status === "Declined" && info.state === "Started") {
      showError("The card was declined. Try again with another card, or choose another method.")
    }
    render()
    schedulePoll()
  }

  const refresh = async () => {
    try {
      await apply(await gate("GET", "get_order_info"))
    } catch (error) {
      reportFailure(error)
      schedulePoll()
    }
  }

  // ---- actions -----------------------------------------------------------------------------------

  const act = async (action, run) => {
    if (busy) return
    busy = true
    showError("")
    render()
    try {
      await run()
    } catch (error) {
      reportFailure(error, action)
      try {
        info = await gate("GET", "get_order_info")
      } catch {
        /* keep the last view */
      }
    } finally {
      busy = false
      render()
      schedulePoll()
    }
  }

  const choose = (t) => {
    const id = String(t.id)
    if (lockedId() === id || !t.available) {
      chosen = id
      render()
      return
    }
    act("order_start", async () => {
      const started = await gate("POST", "order_start", { tokenNetworkId: id })
      chosen = id
      lastState = null
      await apply(started)
    })
  }

  const pay = () => {
    const t = selectedTerminal()
    if (t === null) return
    const id = String(t.id)
    const kind = kindOf(t)
    if (kind === "internal") {
      act("pay_internal", async () => apply(await gate("POST", "pay_internal", {})))
    } else if (kind === "card") {
      if (info.acquiring && info.acquiring.status === "Pending" && info.acquiring.checkoutUrl) {
        location.assign(info.acquiring.checkoutUrl)
        return
      }
      act("pay_card", async () => {
        const opened = await gate("POST", "pay_card", { tokenNetworkId: id })
        info = opened.order
        location.assign(opened.checkoutUrl)
      })
    } else if (info.address) {
      act("get_order_info", async () => apply(await gate("GET", "get_order_info")))
    } else {
      act("pay_crypto", async () => apply(await gate("POST", "pay_crypto", { tokenNetworkId: id })))
    }
  }

  el.pay.addEventListener("click", pay)

  const showBalance = async () => {
    if (!auth || el.signedIn === null) return
    try {
      const response = await fetch("/core/v1/wallet/get_balance", { credentials: "same-origin", cache: "no-store" })
      const envelope = await response.json()
      const rows = Array.isArray(envelope.result) ? envelope.result : []
      const mine = rows.find((r) => r.currency === info.currency)
      el.signedIn.textContent = `Signed in · wallet balance ${mine ? mine.freeBalance : "0"} ${info.currency}`
    } catch {
      /* the line keeps its server-rendered text */
    }
  }

  const start = async () => {
    try {
      await apply(await gate("GET", "get_order_info"))
    } catch (error) {
      reportFailure(error)
      return
    }
    // Signed in (/pay-auth): the wallet balance is the natural method; preselect it without starting.
    if (auth && info.state === "Created" && chosen === null) {
      const internal = terminals.find((t) => t.typeNetwork === INTERNAL && t.available)
      if (internal) {
        chosen = String(internal.id)
        render()
      }
    }
    showBalance()
    setInterval(renderCountdown, 1000)
  }

  start()
})()
