/**
 * Two processes on one PostgreSQL each hold their own chain actor for the same terminal (each
 * process is its own single runner). A push is planned on the stored tip and refused if another
 * process moved it, then planned again on fresh reads: blocks sent alternately and concurrently
 * through either process build one chain, a deposit is credited exactly once, and the audit holds.
 */
import { assert } from "@effect/vitest"
import { addCryptoTerminal, pushBlock, someEvmAddress } from "../support/Chain.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { itWithServer, usingRealPostgres } from "../support/Service.ts"
import { twoProcessClients } from "../support/Client.ts"

const { client, service } = serviceForFile({ enabled: usingRealPostgres() })
const clients = twoProcessClients(service)

itWithServer(
  "pushes through either process build one chain; the same block at once through both is recorded once",
  async () => {
    const [ca, cb] = await clients()
    const t = await addCryptoTerminal(client, { confirmations: 2 })
    const payer = await ca.party()
    const to = someEvmAddress()
    let txId: string | undefined
    for (let h = 1; h <= 12; h++) {
      const through = h % 2 === 0 ? cb : ca
      const items = h === 3 ? [{ txHash: "twoproc", to, amount: "1" }] : []
      const reply = await pushBlock(through, t.id, { height: h, hash: `q${h}`, parentHash: `q${h - 1}`, items })
      assert.strictEqual(reply.status, 200, `height ${h}: ${JSON.stringify(reply.body)}`)
      assert.strictEqual(reply.body.result.tipHeight, h)
      if (h === 3) txId = reply.body.result.items[0].txId
    }
    // The same next block through both processes at once: one appends, the other replays it.
    const both = await Promise.all(
      [ca, cb].map((c) =>
        pushBlock(c, t.id, { height: 13, hash: "q13", parentHash: "q12", items: [{ txHash: "twin", to, amount: "2" }] })
      )
    )
    for (const reply of both) assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assert.deepStrictEqual(both.map((r) => r.body.result.replayed).sort(), [false, true])
    assert.strictEqual(both[0].body.result.items[0].txId, both[1].body.result.items[0].txId)
    const linked = await cb.priv("POST", "link_address_transactions", [{ txId, walletId: payer.id }])
    assert.isNull(linked.body.result[0].error)
    assert.strictEqual((await ca.bucketsOf(payer, "ETH")).free, 1)
    await ca.assertLedgerSound()
  }
)
