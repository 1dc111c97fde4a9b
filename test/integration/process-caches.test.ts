/**
 * Two service processes on one PostgreSQL (real server only): what one process changes reaches
 * the other at once, and what both attempt happens once. Step two of a transfer sent through both
 * processes settles once (the loser's conditional transition raises LC409 inside ledger_commit and
 * answers 10082); a session ended, a wallet blocked or a tariff set through one process applies to
 * the other's next request well inside the caches' one second (ChangeNotices: trigger NOTIFY).
 */
import { assert, describe } from "@effect/vitest"
import { twoProcessClients } from "../support/Client.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { itWithServer, usingRealPostgres } from "../support/Service.ts"

const { service, client } = serviceForFile({
  enabled: usingRealPostgres()
})

const bothProcesses = twoProcessClients(service)

let unique = 0
const wallet = () => client.walletWithSession(String(995_000 + unique++))

describe("two processes racing one transaction", () => {
  // Each process has its own actor for the wallet; both may find the transfer pending and both
  // send its transition. The database decides: the loser's conditional transition finds the row
  // moved on (ledger_commit raises LC409), its batch is undone, and it answers 10082. Never twice.
  itWithServer("step two sent through both processes at once settles once: one Confirmed, one 10082", async () => {
    const [one, other] = await bothProcesses()
    const from = await wallet()
    const to = await wallet()
    await client.fund(from.id, "USDT", "20")
    const body = { recipient: to.id, currency: "USDT", amount: 1 }
    for (let round = 0; round < 10; round++) {
      const first = await one.call("POST", "/core/v1/wallet/internal_transfer", { sid: from.sid, body })
      assert.strictEqual(first.status, 200, JSON.stringify(first.body))
      const { txId, confirmationCode } = first.body.result
      const path = `/core/v1/wallet/internal_transfer?confirmationTimetick=${txId}&confirmationCode=${confirmationCode}`
      const replies = await Promise.all([one, other].map((c) => c.call("POST", path, { sid: from.sid, body })))
      const confirmed = replies.filter((r) => r.status === 200 && r.body.result?.confirmationStatusCode === "Confirmed")
      const refused = replies.filter((r) => r.body.error?.code === 10082)
      assert.strictEqual(confirmed.length, 1, JSON.stringify(replies.map((r) => r.body)))
      assert.strictEqual(refused.length, 1, JSON.stringify(replies.map((r) => r.body)))
    }
    assert.strictEqual((await client.balance(to.sid, "USDT"))?.freeBalance, 10)
    assert.strictEqual((await client.balance(from.sid, "USDT"))?.freeBalance, 10)
    await client.assertLedgerSound()
  })
})

describe("caches across processes (ChangeNotices)", () => {
  // Each process caches tariff rules and sessions (with their wallet's flags) for up to a second; a
  // change through one process must reach the other at once (trigger NOTIFY), well inside that second.
  const within = async <A>(
    read: () => Promise<A>,
    done: (value: A) => boolean,
    ms = 400
  ): Promise<{ value: A; elapsed: number }> => {
    const since = Date.now()
    let value = await read()
    while (!done(value) && Date.now() - since < ms) value = await read()
    return { value, elapsed: Date.now() - since }
  }

  itWithServer("a session ended through one process is refused by the other at once", async () => {
    const [, other] = await bothProcesses()
    const w = await wallet()
    const status = async () => (await other.call("GET", "/core/v1/wallet/get_balance", { sid: w.sid })).status
    assert.strictEqual(await status(), 200) // the other process now has the session cached
    const ended = await client.priv("POST", "end_session", { sid: w.sid })
    assert.strictEqual(ended.body.result?.ended, true, JSON.stringify(ended.body))
    const { value, elapsed } = await within(status, (s) => s === 401)
    assert.strictEqual(value, 401, `the other process still accepted the ended session ${elapsed} ms later`)
  })

  itWithServer(
    "a wallet blocked through one process cannot send through the other at once; unblocked, it can",
    async () => {
      const [, other] = await bothProcesses()
      const from = await wallet()
      const to = await wallet()
      await client.fund(from.id, "USDT", "10")
      const send = async () =>
        (
          await other.call("POST", "/core/v1/wallet/internal_transfer", {
            sid: from.sid,
            body: { recipient: to.id, currency: "USDT", amount: 1 }
          })
        ).body.error?.code ?? 0
      assert.strictEqual(await send(), 0) // step one through the other process: cached session, not blocked
      for (const [flags, expected] of [
        [2, 10031],
        [0, 0]
      ] as const) {
        const set = await client.priv("POST", "update_wallet", { id: from.id, flags })
        assert.strictEqual(set.status, 200, JSON.stringify(set.body))
        const { value, elapsed } = await within(send, (code) => code === expected)
        assert.strictEqual(value, expected, `flags ${flags}: the other process answered ${value} ${elapsed} ms later`)
      }
    }
  )

  itWithServer("a tariff set through one process prices the other's next fee at once", async () => {
    const [, other] = await bothProcesses()
    const w = await wallet()
    const estimate = async () => {
      const reply = await other.call("GET", "/core/v1/estimate_fee?tx_type=InnerTransfer&currency=EUR&amount=10", {
        sid: w.sid
      })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      return reply.body.result.fee as number
    }
    try {
      for (const [feeFixed, expected] of [
        ["0.25", 0.25],
        ["0.5", 0.5],
        ["0", 0]
      ] as const) {
        await estimate() // fills the other process's cache with the rules in force
        const set = await client.priv(
          "POST",
          "set_tariffs",
          feeFixed === "0" ? [] : [{ txClass: "InnerTransfer", currency: "EUR", feeFixed, feePercent: "0" }]
        )
        assert.strictEqual(set.status, 200, JSON.stringify(set.body))
        const { value, elapsed } = await within(estimate, (fee) => fee === expected)
        assert.strictEqual(value, expected, `the other process still charged ${value} ${elapsed} ms after set_tariffs`)
      }
    } finally {
      await client.priv("POST", "set_tariffs", [])
    }
  })
})
