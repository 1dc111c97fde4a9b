/**
 * The rules of a merchant webhook URL (CONTRACT C16 "Merchant webhooks (outbound)"; 10340 on
 * put_payment_order, put_transfer_order and, with #15, set_app_webhook): http(s), at most 2048
 * characters, no userinfo, and — unless WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true — no host that names this
 * machine or a private network: `localhost` (and `*.localhost`), and IP literals outside the public
 * unicast range (loopback, private, link-local, unique-local, CGNAT, unspecified, broadcast, multicast,
 * reserved; IPv4-mapped IPv6 judged as its IPv4). The WHATWG URL parser normalises the host first, so
 * `http://0x7f.1/` is judged as 127.0.0.1. A name that resolves to such an address is the delivery's
 * check (#15, at connect time): validating a name here would only see today's DNS answer.
 * The ranges come from ipaddr.js, not from a table of ours.
 */
import ipaddr from "ipaddr.js"

export const webhookUrlLengthMax = 2048

/** Why `text` is not an acceptable webhook URL, naming the rule; null when it is. */
export const webhookUrlProblem = (text: string, allowPrivate: boolean): string | null => {
  if (text.length > webhookUrlLengthMax) return `at most ${webhookUrlLengthMax} characters`
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return "not a URL"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be http or https"
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password"
  if (allowPrivate) return null
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
  if (host === "localhost" || host.endsWith(".localhost")) return "must not name this machine (localhost)"
  if (ipaddr.isValid(host)) {
    const range = ipaddr.process(host).range()
    if (range !== "unicast") return `must not be a ${range} address`
  }
  return null
}
