/**
 * Races on the same money through real HTTP against the real service (SPEC "Internal transfer",
 * ARCHITECTURE "Actors" and "The ledger"): 100 concurrent two-step transfers each spending the
 * sender's whole balance settle exactly once, 100 concurrent step-two calls (and confirm/cancel
 * mixes) on one pending transfer move its money exactly once, a reused clientNonce wins once, and
 * with a real PostgreSQL the same races split across two service processes on one database still
 * settle once. After each race the balances are exact and the operator audit shows Σ = 0.
 */
import { assert, describe, it } from "@effect/vitest"
import { twoProcessClients, type Reply, type TestClient } from "../support/Client.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { itWithServer } from "../support/Service.ts"

// EUR transfers carry a fee (0.5 + 1 %); USDT transfers are free (no rule, default fee 0).
const { service, client } = serviceForFile({
  setup: (c) => c.setTariffs([{ txClass: "InnerTransfer", currency: "EUR", feeFixed: "0.5", feePercent: "1" }])
})

let unique = 0
const wallet = (on: TestClient = client) => on.walletWithSession(String(930_000 + unique++))
type Wallet = Awaited<ReturnType<typeof wallet>>

interface TransferBody {
  readonly recipient: string
  readonly currency: string
  readonly amount: string
  readonly clientNonce?: string
}

const stepOne = (on: TestClient, sender: Wallet, body: TransferBody) => on.transfer(sender.sid, { ...body })
const stepTwo = (on: TestClient, sender: Wallet, body: TransferBody, txId: string, code: string) =>
  on.confirmTransfer(sender.sid, { ...body }, txId, code)
const cancel = (on: TestClient, sender: Wallet, txId: string) => on.cancelTx(sender.sid, txId)

const buckets = async (w: Wallet, currency: string) => {
  const row = await client.balance(w.sid, currency)
  return { free: row?.freeBalance ?? 0, lockOut: row?.lockOutBalance ?? 0 }
}

const assertLedgerSound = () => client.assertLedgerSound()

const errorCode = (reply: Reply) => reply.body.error?.code ?? null

/** Step one, then (if it reserved) step two with the inline code: the whole two-step transfer. */
const transferFully = async (on: TestClient, sender: Wallet, body: TransferBody) => {
  const first = await stepOne(on, sender, body)
  if (first.status !== 200) return { first, second: undefined }
  return { first, second: await stepTwo(on, sender, body, first.body.result.txId, first.body.result.confirmationCode) }
}

/** 100 whole-balance transfers at once, optionally spread over several processes: exactly one settles. */
const raceWholeBalance = async (
  clients: ReadonlyArray<TestClient>,
  currency: string,
  funded: string,
  amount: string,
  fee: number
) => {
  const sender = await wallet()
  const recipients = await Promise.all(Array.from({ length: 4 }, () => wallet()))
  await client.fund(sender.id, currency, funded)
  const outcomes = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      transferFully(clients[i % clients.length], sender, {
        recipient: recipients[i % recipients.length].id,
        currency,
        amount
      })
    )
  )

  const winners = outcomes.flatMap((o, i) => (o.first.status === 200 ? [{ ...o, index: i }] : []))
  assert.strictEqual(
    winners.length,
    1,
    JSON.stringify(outcomes.filter((o) => o.first.status === 200).map((o) => o.first.body))
  )
  const [winner] = winners
  assert.strictEqual(winner.first.body.result.fee, fee)
  assert.strictEqual(winner.first.body.result.confirmationStatusCode, "NeedCodeConfirm")
  assert.strictEqual(winner.second?.status, 200, JSON.stringify(winner.second?.body))
  assert.strictEqual(winner.second?.body.result.confirmationStatusCode, "Confirmed")
  const losers = outcomes.filter((o) => o.first.status !== 200)
  assert.strictEqual(losers.length, 99)
  for (const loser of losers) {
    assert.strictEqual(loser.first.status, 400)
    assert.strictEqual(errorCode(loser.first), 10002, JSON.stringify(loser.first.body))
  }

  assert.deepStrictEqual(await buckets(sender, currency), { free: 0, lockOut: 0 })
  for (const [index, recipient] of recipients.entries()) {
    const expected = index === winner.index % recipients.length ? Number(amount) : 0
    assert.deepStrictEqual(await buckets(recipient, currency), { free: expected, lockOut: 0 })
  }
  await assertLedgerSound()
}

/** One pending transfer, then `calls` concurrent attempts to finish it: exactly one moves the money. */
const racePending = async (clients: ReadonlyArray<TestClient>, attempts: ReadonlyArray<"confirm" | "cancel">) => {
  const sender = await wallet()
  const recipient = await wallet()
  await client.fund(sender.id, "EUR", "300")
  const body = { recipient: recipient.id, currency: "EUR", amount: "100" }
  const first = await stepOne(client, sender, body)
  assert.strictEqual(first.status, 200, JSON.stringify(first.body))
  const { txId, confirmationCode, fee } = first.body.result
  assert.strictEqual(fee, 1.5)
  assert.deepStrictEqual(await buckets(sender, "EUR"), { free: 198.5, lockOut: 101.5 })

  const replies = await Promise.all(
    attempts.map((kind, i) =>
      kind === "confirm"
        ? stepTwo(clients[i % clients.length], sender, body, txId, confirmationCode)
        : cancel(clients[i % clients.length], sender, txId)
    )
  )

  const succeeded = replies.flatMap((reply, i) => (reply.status === 200 ? [attempts[i]] : []))
  assert.strictEqual(succeeded.length, 1, JSON.stringify(replies.filter((r) => r.status === 200).map((r) => r.body)))
  for (const reply of replies.filter((r) => r.status !== 200))
    assert.strictEqual(errorCode(reply), 10082, JSON.stringify(reply.body))
  const confirmed = succeeded[0] === "confirm"
  if (confirmed) {
    const winner = replies.find((r) => r.status === 200)!
    assert.strictEqual(winner.body.result.confirmationStatusCode, "Confirmed")
  }

  assert.deepStrictEqual(await buckets(sender, "EUR"), { free: confirmed ? 198.5 : 300, lockOut: 0 })
  assert.deepStrictEqual(await buckets(recipient, "EUR"), { free: confirmed ? 100 : 0, lockOut: 0 })
  const tx = await client.priv("GET", `transact_get?timetick=${txId}`)
  assert.strictEqual(tx.body.result.txState, confirmed ? 8 : 16)
  await assertLedgerSound()
  return confirmed
}

describe("one process: the wallet actor serializes spends of the same money", () => {
  it("100 concurrent whole-balance transfers (fee 0): exactly one settles, 99 get 10002 at step one", async () => {
    await raceWholeBalance([client], "USDT", "250.123456", "250.123456", 0)
  })

  it("100 concurrent transfers of amount + fee = the whole balance (EUR, fee 1.5): exactly one settles", async () => {
    await raceWholeBalance([client], "EUR", "101.5", "100", 1.5)
  })

  it("100 concurrent step-two calls on one pending transfer: one Confirmed, 99 get 10082, the recipient is credited once", async () => {
    assert.isTrue(
      await racePending(
        [client],
        Array.from({ length: 100 }, () => "confirm")
      )
    )
  })

  it("50 confirms and 50 cancels racing on one pending transfer: exactly one of them wins, money moves once", async () => {
    // Interleaved so both kinds reach the actor early; whichever wins, the balances must agree with it.
    await racePending(
      [client],
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? "confirm" : "cancel"))
    )
  })

  it("100 concurrent cancels of one pending transfer: one releases the reservation, 99 get 10082", async () => {
    assert.isFalse(
      await racePending(
        [client],
        Array.from({ length: 100 }, () => "cancel")
      )
    )
  })

  it("the same clientNonce sent 30 times at once (funds for all): one reservation, 29 get 10130", async () => {
    const sender = await wallet()
    const recipient = await wallet()
    await client.fund(sender.id, "USDT", "1000")
    const body = { recipient: recipient.id, currency: "USDT", amount: "10", clientNonce: String(Date.now()) }
    const replies = await Promise.all(Array.from({ length: 30 }, () => stepOne(client, sender, body)))
    assert.strictEqual(replies.filter((r) => r.status === 200).length, 1)
    for (const reply of replies.filter((r) => r.status !== 200))
      assert.strictEqual(errorCode(reply), 10130, JSON.stringify(reply.body))
    assert.deepStrictEqual(await buckets(sender, "USDT"), { free: 990, lockOut: 10 })
    await assertLedgerSound()
  })

  it("100 senders each sending to the next in a ring, all at once: every transfer settles and each balance is unchanged", async () => {
    const ring = await Promise.all(Array.from({ length: 100 }, () => wallet()))
    await client.priv(
      "POST",
      "execute_transactions",
      ring.map((w, i) => ({
        externalId: `ring-${Date.now()}-${i}`,
        walletId: w.id,
        currency: "USDT",
        amount: "5",
        direction: "credit"
      }))
    )
    const outcomes = await Promise.all(
      ring.map((w, i) =>
        transferFully(client, w, { recipient: ring[(i + 1) % ring.length].id, currency: "USDT", amount: "5" })
      )
    )
    for (const o of outcomes)
      assert.strictEqual(
        o.second?.body.result?.confirmationStatusCode,
        "Confirmed",
        JSON.stringify([o.first.body, o.second?.body])
      )
    for (const w of ring) assert.deepStrictEqual(await buckets(w, "USDT"), { free: 5, lockOut: 0 })
    await assertLedgerSound()
  })
})

describe("two processes on one PostgreSQL: the database is the final arbiter", () => {
  const both = twoProcessClients(service)

  itWithServer(
    "100 whole-balance transfers split over two processes: exactly one settles, 99 get 10002",
    async () => {
      await raceWholeBalance(await both(), "USDT", "77.5", "77.5", 0)
    },
    90_000
  )

  itWithServer(
    "100 step-two calls on one pending transfer split over two processes: one Confirmed, the rest 10082",
    async () => {
      assert.isTrue(
        await racePending(
          await both(),
          Array.from({ length: 100 }, () => "confirm")
        )
      )
    },
    90_000
  )

  itWithServer(
    "confirms and cancels racing over two processes: exactly one wins",
    async () => {
      await racePending(
        await both(),
        Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? "cancel" : "confirm"))
      )
    },
    90_000
  )
})
