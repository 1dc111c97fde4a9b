/**
 * C19 §7 (issue #23, deliver item 3): a database failure inside an actor ends that one message,
 * answered at once, and leaves the actor serving the next ones. The test makes the database refuse
 * one transaction deterministically — a trigger on `transactions` raises (SQLSTATE P0001, an error
 * the ledger writer does not classify) for the tag "actor-fault" — and sends it through the wallet
 * actor (internal_transfer) and through the code actor to the wallet actor (create_tx_code). Before
 * the fix the entity died, was restarted and replayed the same message forever: the request got no
 * answer until the request deadline (503 10410). Now: 500 10500 within seconds, the same wallet's
 * next request works, nothing moved, and the ledger audit is sound.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeClient } from "../support/Client.ts"
import { onServiceDatabase } from "../support/CryptoAddresses.ts"
import { assertRejected } from "../support/Fixtures.ts"
import { type RunningService, startService } from "../support/Service.ts"

const env = { REQUEST_TIMEOUT_SECONDS: "20", LOG_LEVEL: "error" }
let running: RunningService | undefined
const client = makeClient(() => running!)

beforeAll(async () => {
  running = await startService({ env })
  const planted = await onServiceDatabase(running, env, (sql) =>
    Effect.gen(function* () {
      yield* sql.unsafe(`CREATE FUNCTION test_refuse_tag() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.tag = 'actor-fault' THEN RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'P0001'; END IF;
          RETURN NEW;
        END $$`)
      yield* sql.unsafe(
        `CREATE TRIGGER test_refuse_tag BEFORE INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION test_refuse_tag()`
      )
    })
  )
  running = planted.running
}, 180_000)

afterAll(async () => {
  await running?.stop()
})

/** The reply and how long it took. */
const timed = async <T>(request: () => Promise<T>) => {
  const started = Date.now()
  const reply = await request()
  return { reply, millis: Date.now() - started }
}

describe("C19 §7: a database error inside an actor is that message's failure, answered at once", () => {
  it("wallet actor (internal_transfer): 500 10500 at once; the next transfer of the same wallet settles", async () => {
    const sender = await client.party({ fund: "100" })
    const recipient = await client.party()
    const before = await client.bucketsOf(sender)

    const failed = await timed(() =>
      client.transfer(sender.sid, { recipient: recipient.id, currency: "USDT", amount: 1, tag: "actor-fault" })
    )
    assertRejected(failed.reply, 500, 10500, "refused by the database")
    assert.isBelow(failed.millis, 10_000, "answered at once, not at the request deadline")
    assert.deepStrictEqual(await client.bucketsOf(sender), before, "nothing moved")

    // The same actor serves the next message (twice: a restart loop would still be replaying the first).
    for (let i = 0; i < 2; i++) {
      const next = await timed(() =>
        client.transfer(sender.sid, { recipient: recipient.id, currency: "USDT", amount: 1 })
      )
      assert.strictEqual(next.reply.status, 200, JSON.stringify(next.reply.body))
      assert.isBelow(next.millis, 10_000)
      const out = next.reply.body.result
      const two = await client.confirmTransfer(
        sender.sid,
        { recipient: recipient.id, currency: "USDT", amount: 1 },
        out.txId,
        out.confirmationCode
      )
      assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    }
    assert.strictEqual((await client.bucketsOf(recipient)).free, 2)
    await client.assertLedgerSound("after the refused transfer")
  }, 60_000)

  it("code actor → wallet actor (create_tx_code): 500 10500 at once; the next code is created", async () => {
    const creator = await client.party({ fund: "50" })
    const before = await client.bucketsOf(creator)
    const failed = await timed(() =>
      client.call("POST", "/core/v1/create_tx_code", {
        sid: creator.sid,
        body: { amount: 5, currency: "USDT", typeTx: 11, tag: "actor-fault" }
      })
    )
    assertRejected(failed.reply, 500, 10500, "refused by the database")
    assert.isBelow(failed.millis, 10_000, "answered at once, not at the request deadline")
    assert.deepStrictEqual(await client.bucketsOf(creator), before, "nothing held")

    const next = await client.call("POST", "/core/v1/create_tx_code", {
      sid: creator.sid,
      body: { amount: 5, currency: "USDT", typeTx: 11 }
    })
    assert.strictEqual(next.status, 200, JSON.stringify(next.body))
    assert.strictEqual((await client.bucketsOf(creator)).lockOut, 5)
    await client.assertLedgerSound("after the refused code")
  }, 60_000)
})
