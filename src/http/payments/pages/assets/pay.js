// The payment page's script (CONTRACT C16 "The payment page"), an ES module of this origin with
// pay-model.js (the gate client, what the order allows) and pay-view.js (rendering into the hooks).
// It drives the public gate /payment/v1/: shows the order, lists get_terminals with their quotes,
// starts the order on the chosen terminal, pays internal (the origin's `sid` cookie), by card (to the
// checkout page) or by crypto (the order's address and its QR code), polls get_order_info while a
// payment is in flight, counts down to expiry and shows the gate's error messages in [data-pay=error].
import { INTERNAL, POLL_MS, gateFor, inFlight, isOpen, kindOf, lockedId, selectedTerminal } from "./pay-model.js"
import { createView, elementsOf } from "./pay-view.js"

const el = elementsOf()
if (el !== null) {
  const code = el.order.dataset.code || new URLSearchParams(location.search).get("code") || ""
  /** The page's one state: what the gate said last and what the payer chose. */
  const s = {
    code,
    auth: document.body.dataset.auth === "1",
    info: null,
    terminals: [],
    chosen: null,
    busy: false
  }
  const gate = gateFor(code)
  let pollTimer = null
  let expiryAskedAt = 0
  let lastState = null

  const reportFailure = (error, action) => {
    let message = error && error.message ? error.message : String(error)
    if (action === "pay_internal" && error.status === 401) {
      message = `${message}. Sign in to your wallet to pay from its balance, or choose another method.`
    }
    view.showError(message)
  }

  const schedulePoll = () => {
    if (pollTimer !== null) clearTimeout(pollTimer)
    pollTimer = null
    if (inFlight(s)) pollTimer = setTimeout(() => refresh(), POLL_MS)
  }

  /** A new OrderInfoOut: the offers again when the state changed, then render and poll on if in flight. */
  const apply = async (next) => {
    s.info = next
    if (lastState !== s.info.state) {
      lastState = s.info.state
      if (isOpen(s)) {
        try {
          s.terminals = await gate("GET", "get_terminals")
        } catch (error) {
          reportFailure(error)
        }
      }
    }
    if (s.info.acquiring && s.info.acquiring.status === "Declined" && s.info.state === "Started") {
      view.showError("The card was declined. Try again with another card, or choose another method.")
    }
    view.render()
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

  /** One payer action at a time; a failure shows the gate's message and re-reads the order. */
  const act = async (action, run) => {
    if (s.busy) return
    s.busy = true
    view.showError("")
    view.render()
    try {
      await run()
    } catch (error) {
      reportFailure(error, action)
      try {
        s.info = await gate("GET", "get_order_info")
      } catch {
        /* keep the last view */
      }
    } finally {
      s.busy = false
      view.render()
      schedulePoll()
    }
  }

  /** A terminal chosen: order_start locks it (terminal, fee, rate); the locked one is just selected. */
  const choose = (t) => {
    const id = String(t.id)
    if (lockedId(s) === id || !t.available) {
      s.chosen = id
      view.render()
      return
    }
    act("order_start", async () => {
      const started = await gate("POST", "order_start", { tokenNetworkId: id })
      s.chosen = id
      lastState = null
      await apply(started)
    })
  }

  /** Before any income: back to Created (cancel_crypto), every method offered again. */
  const cancelCrypto = () =>
    act("cancel_crypto", async () => {
      const back = await gate("POST", "cancel_crypto", {})
      s.chosen = null
      lastState = null
      await apply(back)
    })

  const pay = () => {
    const t = selectedTerminal(s)
    if (t === null) return
    const id = String(t.id)
    const kind = kindOf(t)
    const info = s.info
    if (kind === "internal") {
      act("pay_internal", async () => apply(await gate("POST", "pay_internal", {})))
    } else if (kind === "card") {
      if (info.acquiring && info.acquiring.status === "Pending" && info.acquiring.checkoutUrl) {
        location.assign(info.acquiring.checkoutUrl)
        return
      }
      act("pay_card", async () => {
        const opened = await gate("POST", "pay_card", { tokenNetworkId: id })
        s.info = opened.order
        location.assign(opened.checkoutUrl)
      })
    } else if (info.address) {
      act("get_order_info", async () => apply(await gate("GET", "get_order_info")))
    } else {
      act("pay_crypto", async () => apply(await gate("POST", "pay_crypto", { tokenNetworkId: id })))
    }
  }

  const view = createView(el, s, { choose, cancelCrypto })
  el.pay.addEventListener("click", pay)

  /** Every second; past expiresAt the gate reads Expired at once: ask it at the polling pace until it does. */
  const tick = () => {
    const left = view.renderCountdown()
    if (left === 0 && !s.busy && Date.now() - expiryAskedAt >= POLL_MS) {
      expiryAskedAt = Date.now()
      refresh()
    }
  }

  /** /pay-auth: the signed-in wallet's balance in the order currency. */
  const showBalance = async () => {
    if (!s.auth || el.signedIn === null) return
    try {
      const response = await fetch("/core/v1/wallet/get_balance", { credentials: "same-origin", cache: "no-store" })
      const envelope = await response.json()
      const rows = Array.isArray(envelope.result) ? envelope.result : []
      const mine = rows.find((r) => r.currency === s.info.currency)
      el.signedIn.textContent = `Signed in · wallet balance ${mine ? mine.freeBalance : "0"} ${s.info.currency}`
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
    if (s.auth && s.info.state === "Created" && s.chosen === null) {
      const internal = s.terminals.find((t) => t.typeNetwork === INTERNAL && t.available)
      if (internal) {
        s.chosen = String(internal.id)
        view.render()
      }
    }
    showBalance()
    setInterval(tick, 1000)
  }

  start()
}
