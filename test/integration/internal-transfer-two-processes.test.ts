/**
 * Step two when another process changed the pending transfer (PostgreSQL server; two single-runner
 * processes on one database, each with its own wallet actor for the same wallet). The actor that made a
 * reservation remembers it for step two (actors/wallet/TransferHandlers.ts, `memo`): that memory is a
 * hint, and SQL's conditional transition stays the authority. A transfer reserved through process A and
 * cancelled through process B is not settled by A's step two (10082), and the money is back, once.
 */
import { afterAll, assert, describe } from "@effect/vitest"
import { makeClient } from "../support/Client.ts"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"

const { service, client } = serviceForFile()
let peer: RunningService | undefined
afterAll(async () => {
  await peer?.stop()
})

describe("a reservation remembered by one process, cancelled through another", () => {
  itWithServer(
    "A reserves, B cancels, A's step two answers 10082 and moves nothing; a fresh transfer through A settles",
    async () => {
      peer = await startService({ databaseUrl: service().databaseUrl })
      const onB = makeClient(peer)
      const sender = await client.party({ fund: "100" })
      const recipient = await client.party()
      const senderOnB = await onB.createSession(sender.id)
      const body = { recipient: recipient.id, amount: 10, currency: "USDT" }
      const before = await client.bucketsOf(sender)

      const one = await client.transfer(sender.sid, body)
      assert.strictEqual(one.status, 200, JSON.stringify(one.body))
      const { txId, confirmationCode } = one.body.result
      assert.isBelow((await client.bucketsOf(sender)).free, before.free, "step one reserved amount + fee")
      const cancelled = await onB.cancelTx(senderOnB, txId)
      assert.strictEqual(cancelled.status, 200, JSON.stringify(cancelled.body))

      assertRejected(await client.confirmTransfer(sender.sid, body, txId, confirmationCode), 400, 10082, "step two")
      assert.deepStrictEqual(await client.bucketsOf(sender), before, "the reservation was released, once")
      assert.deepStrictEqual(await client.bucketsOf(recipient), { free: 0, lockOut: 0, lockIn: 0, lockOrders: 0 })

      const again = await client.transfer(sender.sid, body)
      assert.strictEqual(again.status, 200, JSON.stringify(again.body))
      const settled = await client.confirmTransfer(
        sender.sid,
        body,
        again.body.result.txId,
        again.body.result.confirmationCode
      )
      assert.strictEqual(settled.status, 200, JSON.stringify(settled.body))
      assert.strictEqual((await client.bucketsOf(recipient)).free, 10)
      await client.assertLedgerSound()
    },
    60_000
  )
})
