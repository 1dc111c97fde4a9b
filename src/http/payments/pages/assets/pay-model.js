// The payment page's model (see pay.js): the gate client of this origin and what the page derives from
// the order (OrderInfoOut) and its offers (TerminalOut[]). `s` is the page's one state object:
// { code, auth, info, terminals, chosen, busy }.

export const POLL_MS = 1500
export const OPEN = ["Created", "Started"]
export const PAID = ["Paid", "PartiallyRefunded", "Refunded"]
export const INTERNAL = 240
export const CARD = 100

/** A gate failure: the envelope's message (shown as it is), HTTP status and error code. */
export class GateError extends Error {
  constructor(message, status, code) {
    super(message)
    this.status = status
    this.code = code
  }
}

/** The gate /payment/v1/ for one order code: `gate(method, action, body?)` → the envelope's result. */
export const gateFor = (code) => async (method, action, body) => {
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

export const kindOf = (terminal) =>
  terminal.typeNetwork === INTERNAL ? "internal" : terminal.typeNetwork === CARD ? "card" : "crypto"

/** A PaymentOrder the payer can still act on. */
export const isOpen = (s) => s.info !== null && s.info.kind === "PaymentOrder" && OPEN.includes(s.info.state)

/** The terminal the order is locked on (Started) or preselected with, else null. */
export const lockedId = (s) => (s.info !== null && s.info.terminal ? String(s.info.terminal.id) : null)

export const selectedTerminal = (s) => {
  const id = lockedId(s) || s.chosen
  if (id === null) return null
  return s.terminals.find((t) => String(t.id) === id) || (s.info && s.info.terminal) || null
}

/** A payment under way: a card session not yet settled, a crypto address waiting, an income seen. */
export const inFlight = (s) => {
  const info = s.info
  if (info === null) return false
  if (info.state === "Processing") return true
  if (info.state !== "Started") return false
  const status = info.acquiring ? info.acquiring.status : null
  return status === "Pending" || status === "Approved" || info.address !== null
}
