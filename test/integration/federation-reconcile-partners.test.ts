/**
 * Federation reconciliation reaches every partner (CONTRACT C18 "Reconciliation"), between two real
 * service processes: 200 partner orders of a disabled partner and of an unreachable one (B behind a relay
 * that is then down), all older than a third partner's order, do not keep that order — paid on B, its
 * webhooks refused here (A's record holds a secret B does not sign with) — from being credited by
 * reconciliation, once. A pass goes partner by partner through all their links; the code before paged the
 * 200 oldest links of all partners and never got past the backlog. A reconciliation beat of 5 s keeps B's
 * load bearable while the backlog is placed. Both ledger audits after the test.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { serviceForFile } from "../support/Fixtures.ts"
import { federationEnv, federationOf, type Link, startRelay } from "../support/Federation.ts"

const A = serviceForFile({ env: federationEnv({ FEDERATION_RECONCILE_SECONDS: "5" }) })
const B = serviceForFile({ env: federationEnv() })
const onA = federationOf(A.client, B.client, B.service)
const FederationCredit = 26
const lostSecret = "a-secret-B-never-signs-with"

let link: Link

beforeAll(async () => {
  link = await onA.link("B", "1000", { webhookSecret: lostSecret })
}, 60_000)

describe("reconciliation reaches every partner", () => {
  it("a disabled partner's backlog and an unreachable partner's (200 orders older than any other) cannot starve another partner's order: paid there, credited once by reconciliation", async () => {
    const unreachable = await startRelay(() => B.service().base)
    try {
      const record = (partnerId: string, baseUrl: string, enabled = true) =>
        A.client.priv("POST", "add_federation_partner", {
          partnerId,
          name: partnerId,
          baseUrl,
          outboundAppId: link.app.appId,
          outboundPkey: link.app.pkey,
          webhookSecret: lostSecret,
          capabilities: ["Federation", "FederationWallet"],
          enabled
        })
      // By partnerId a pass meets the disabled and the unreachable partner before the healthy one.
      for (const [partnerId, baseUrl] of [
        ["Bd", B.service().base],
        ["Bu", unreachable.base],
        ["Zz", B.service().base]
      ] as const)
        assert.strictEqual((await record(partnerId, baseUrl)).status, 200)
      const user = await A.client.party()
      const backlog = [...Array.from({ length: 100 }, () => "Bd"), ...Array.from({ length: 100 }, () => "Bu")]
      // B may be slow to answer on a loaded machine: an order it did not answer in time (10177, nothing
      // recorded) is asked again.
      const place = async (partnerId: string): Promise<void> => {
        const reply = await onA.createOrder(user.sid, { partnerId, currency: "USDT", amount: "0.01" })
        if (reply.body.error?.code === 10177) return place(partnerId)
        assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      }
      for (let i = 0; i < backlog.length; i += 4) await Promise.all(backlog.slice(i, i + 4).map(place))
      assert.strictEqual((await record("Bd", B.service().base, false)).status, 200)
      await unreachable.down()
      const order = (await onA.createOrder(user.sid, { partnerId: "Zz", currency: "USDT", amount: "1.25" })).body.result
      await onA.payOnAway(order.code, await B.client.party({ fund: "5" }))
      await onA.eventually(
        () => onA.txInfo(user.sid, order.txId),
        (tx) => tx.state === "Finished",
        60_000
      )
      assert.strictEqual(await onA.free(user), 1.25)
      assert.lengthOf(
        (await onA.historyOf(user.sid, FederationCredit)).filter((tx) => tx.state === "Finished"),
        1
      )
      await B.client.assertLedgerSound("B")
    } finally {
      await unreachable.close()
    }
  }, 420_000)
})
