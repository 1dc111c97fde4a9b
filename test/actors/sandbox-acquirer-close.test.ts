/**
 * The sandbox acquirer's close (sql/SandboxAcquirerRepo.ts, Acquirer.close; docs/CARDS.md
 * "Reconciliation"): reconciliation closes a session that outlived its TTL at the provider before
 * expiring it here, and that close is atomic against a card being taken. Closed first: the card is then
 * refused. Decided first: the close answers the outcome that won, which the session then takes. Raced 20
 * times at once: each payment ends with exactly one winner, and the two answers agree.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  closeSandboxPayment,
  decideSandboxPayment,
  insertSandboxPayment,
  sandboxPaymentById
} from "../../sql/SandboxAcquirerRepo.ts"
import { ActorPlatform } from "../support/Actors.ts"

let next = 0

const open = Effect.fnUntraced(function* () {
  const acquiringId = `acq_close_${process.pid}_${next++}`
  yield* insertSandboxPayment({
    acquiringId,
    amount: "10.6",
    currency: "USDT",
    description: null,
    successUrl: "http://shop.example/ok",
    failUrl: "http://shop.example/fail",
    expiresAt: new Date(Date.now() + 3_600_000)
  })
  return acquiringId
})

layer(ActorPlatform, { excludeTestServices: true, timeout: 120_000 })("sandbox acquirer: close", (it) => {
  it.effect("closed first: Expired, and a card taken afterwards is refused; a second close stays Expired", () =>
    Effect.gen(function* () {
      const id = yield* open()
      assert.strictEqual(yield* closeSandboxPayment(id), "Expired")
      assert.isUndefined(yield* decideSandboxPayment(id, "Approved", "4242", "evt_late"))
      assert.strictEqual((yield* sandboxPaymentById(id))?.status, "Expired")
      assert.strictEqual(yield* closeSandboxPayment(id), "Expired")
    })
  )

  it.effect("decided first: the close answers the outcome that won and changes nothing", () =>
    Effect.gen(function* () {
      const approved = yield* open()
      assert.isDefined(yield* decideSandboxPayment(approved, "Approved", "4242", "evt_a"))
      assert.strictEqual(yield* closeSandboxPayment(approved), "Approved")
      assert.strictEqual((yield* sandboxPaymentById(approved))?.status, "Approved")
      const declined = yield* open()
      assert.isDefined(yield* decideSandboxPayment(declined, "Declined", "0002", "evt_d"))
      assert.strictEqual(yield* closeSandboxPayment(declined), "Declined")
      assert.isUndefined(yield* closeSandboxPayment("acq_nobody"), "an unknown id")
    })
  )

  it.effect("a card and the close raced 20 times: one winner each, and both sides agree on it", () =>
    Effect.gen(function* () {
      const ids = yield* Effect.forEach(Array.from({ length: 20 }), () => open())
      const results = yield* Effect.forEach(
        ids,
        (id) =>
          Effect.all([decideSandboxPayment(id, "Approved", "4242", `evt_${id}`), closeSandboxPayment(id)], {
            concurrency: 2
          }),
        { concurrency: "unbounded" }
      )
      for (const [i, [decided, closed]] of results.entries()) {
        const stored = (yield* sandboxPaymentById(ids[i]!))?.status
        if (decided !== undefined) assert.deepStrictEqual([closed, stored], ["Approved", "Approved"], ids[i])
        else assert.deepStrictEqual([closed, stored], ["Expired", "Expired"], ids[i])
      }
    })
  )
})
