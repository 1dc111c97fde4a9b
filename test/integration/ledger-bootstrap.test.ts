/**
 * Trusted ledger postings (CONTRACT C3 execute_transactions, C6 invariant) over real HTTP against
 * the real service: credits and debits with one result per item, idempotency by externalId,
 * refusals that leave balances untouched, the wallet actor serializing 50 concurrent spends of the
 * same money, isolation of failures inside a batch, and the operator audit (`ledger_audit`)
 * showing Σ = 0 per currency and no negative user bucket after all of it.
 */
import { assert, describe, it } from "@effect/vitest"
import { serviceForFile } from "../support/Fixtures.ts"
import { withDatabase } from "../support/Postgres.ts"
import { itWithServer } from "../support/Service.ts"

const { service, client } = serviceForFile()

let unique = 0
const ext = (label: string) => `${label}-${Date.now()}-${unique++}`

/** A new wallet of a new client with a session on it. */
const freshWallet = () => client.party({ clientId: String(880_000 + unique++) })

const free = async (sid: string, currency: string): Promise<number> =>
  (await client.balance(sid, currency))?.freeBalance ?? 0

const execute = (items: ReadonlyArray<Record<string, unknown>>) => client.priv("POST", "execute_transactions", items)

const audit = async () => {
  const reply = await client.priv("GET", "ledger_audit")
  assert.strictEqual(reply.status, 200)
  return reply.body.result as {
    sums: Array<{ currency: string; total: string }>
    negativeUserBuckets: number
    orphanRows: number
  }
}

const assertLedgerSound = () => client.assertLedgerSound()

describe("execute_transactions: credit and debit", () => {
  it("credits and debits the free balance, one result per item with its txId", async () => {
    const w = await freshWallet()
    const credit = await execute([
      { externalId: ext("c"), walletId: w.id, currency: "USDT", amount: "100.5", direction: "credit", tag: "top-up" }
    ])
    assert.strictEqual(credit.status, 200)
    assert.strictEqual(credit.body.result.length, 1)
    const item = credit.body.result[0]
    assert.isNull(item.error)
    assert.isFalse(item.replayed)
    assert.isString(item.txId)
    assert.match(item.txId, /^[0-9]+$/)
    assert.strictEqual(await free(w.sid, "USDT"), 100.5)

    const debit = await execute([
      { externalId: ext("d"), walletId: w.id, currency: "USDT", amount: 40, direction: "debit" }
    ])
    assert.isNull(debit.body.result[0].error)
    assert.notStrictEqual(debit.body.result[0].txId, item.txId)
    assert.strictEqual(await free(w.sid, "USDT"), 60.5)
  })

  it("answers items in input order, each with its own externalId", async () => {
    const w = await freshWallet()
    const ids = [ext("o1"), ext("o2"), ext("o3")]
    const reply = await execute(
      ids.map((externalId, i) => ({
        externalId,
        walletId: w.id,
        currency: "EUR",
        amount: String(i + 1),
        direction: "credit"
      }))
    )
    assert.deepStrictEqual(
      reply.body.result.map((r: any) => r.externalId),
      ids
    )
    assert.strictEqual(await free(w.sid, "EUR"), 6)
  })

  it("accepts the full precision of the currency (ETH 18 decimals) and keeps it exact", async () => {
    const w = await freshWallet()
    await execute([
      { externalId: ext("eth"), walletId: w.id, currency: "ETH", amount: "1.000000000000000001", direction: "credit" }
    ])
    await execute([
      { externalId: ext("eth"), walletId: w.id, currency: "ETH", amount: "0.000000000000000001", direction: "debit" }
    ])
    assert.strictEqual(await free(w.sid, "ETH"), 1)
  })
})

describe("execute_transactions: idempotency by externalId", () => {
  it("a replay returns the same txId with replayed=true and moves nothing", async () => {
    const w = await freshWallet()
    const body = {
      externalId: ext("idem"),
      walletId: w.id,
      currency: "USDT",
      amount: "10",
      direction: "credit",
      tag: "once"
    }
    const first = await execute([body])
    const second = await execute([body])
    assert.isFalse(first.body.result[0].replayed)
    assert.isTrue(second.body.result[0].replayed)
    assert.strictEqual(second.body.result[0].txId, first.body.result[0].txId)
    assert.isNull(second.body.result[0].error)
    assert.strictEqual(await free(w.sid, "USDT"), 10)
  })

  it("a replay with the amount written differently (number vs string, trailing zeros) is the same body", async () => {
    const w = await freshWallet()
    const externalId = ext("same")
    const first = await execute([{ externalId, walletId: w.id, currency: "USDT", amount: "2.50", direction: "credit" }])
    const second = await execute([
      { externalId, walletId: Number(w.id), currency: "USDT", amount: 2.5, direction: "credit" }
    ])
    assert.isTrue(second.body.result[0].replayed)
    assert.strictEqual(second.body.result[0].txId, first.body.result[0].txId)
    assert.strictEqual(await free(w.sid, "USDT"), 2.5)
  })

  it("the same externalId with a different body is refused in that item (10060) and moves nothing", async () => {
    const w = await freshWallet()
    const externalId = ext("conflict")
    await execute([{ externalId, walletId: w.id, currency: "USDT", amount: "10", direction: "credit" }])
    for (const changed of [{ amount: "11" }, { direction: "debit" }, { currency: "EUR" }, { tag: "other" }]) {
      const reply = await execute([
        { externalId, walletId: w.id, currency: "USDT", amount: "10", direction: "credit", ...changed }
      ])
      assert.strictEqual(reply.status, 200, JSON.stringify(changed))
      const item = reply.body.result[0]
      assert.strictEqual(item.error?.code, 10060, JSON.stringify(changed))
      assert.isNull(item.txId)
      assert.isFalse(item.replayed)
    }
    const other = await freshWallet()
    const elsewhere = await execute([
      { externalId, walletId: other.id, currency: "USDT", amount: "10", direction: "credit" }
    ])
    assert.strictEqual(elsewhere.body.result[0].error?.code, 10060)
    assert.strictEqual(await free(w.sid, "USDT"), 10)
    assert.strictEqual(await free(other.sid, "EUR"), 0)
    assert.strictEqual(await free(other.sid, "USDT"), 0)
  })

  it("the same new externalId sent concurrently executes once; every answer carries that one txId", async () => {
    const w = await freshWallet()
    const body = { externalId: ext("race"), walletId: w.id, currency: "USDT", amount: "3", direction: "credit" }
    const replies = await Promise.all(Array.from({ length: 10 }, () => execute([body])))
    const items = replies.map((r) => r.body.result[0])
    for (const item of items) assert.isNull(item.error, JSON.stringify(item))
    assert.strictEqual(new Set(items.map((i) => i.txId)).size, 1)
    assert.strictEqual(items.filter((i) => !i.replayed).length, 1)
    assert.strictEqual(await free(w.sid, "USDT"), 3)
  })

  it("the same externalId twice in one batch executes once", async () => {
    const w = await freshWallet()
    const body = { externalId: ext("twice"), walletId: w.id, currency: "USDT", amount: "4", direction: "credit" }
    const reply = await execute([body, body])
    const [a, b] = reply.body.result
    assert.isNull(a.error)
    assert.isNull(b.error)
    assert.strictEqual(a.txId, b.txId)
    assert.strictEqual([a, b].filter((i) => i.replayed).length, 1)
    assert.strictEqual(await free(w.sid, "USDT"), 4)
  })

  it("a debit of the whole balance replayed concurrently still answers with its one txId", async () => {
    const w = await freshWallet()
    await client.fund(w.id, "USDT", "7")
    const body = { externalId: ext("debit-race"), walletId: w.id, currency: "USDT", amount: "7", direction: "debit" }
    const replies = await Promise.all(Array.from({ length: 8 }, () => execute([body])))
    const items = replies.map((r) => r.body.result[0])
    for (const item of items) assert.isNull(item.error, JSON.stringify(item))
    assert.strictEqual(new Set(items.map((i) => i.txId)).size, 1)
    assert.strictEqual(await free(w.sid, "USDT"), 0)
  })
})

describe("execute_transactions: refusals", () => {
  it("a debit beyond the free balance is refused in its item (10002) and the balance is unchanged", async () => {
    const w = await freshWallet()
    await client.fund(w.id, "USDT", "5")
    const reply = await execute([
      { externalId: ext("over"), walletId: w.id, currency: "USDT", amount: "5.000001", direction: "debit" }
    ])
    assert.strictEqual(reply.status, 200)
    assert.strictEqual(reply.body.result[0].error?.code, 10002)
    assert.isNull(reply.body.result[0].txId)
    assert.strictEqual(await free(w.sid, "USDT"), 5)
    // A refused externalId was not consumed: the same id may be used once the money is there.
    const empty = await freshWallet()
    const externalId = ext("later")
    const debit = { externalId, walletId: empty.id, currency: "BTC", amount: "1", direction: "debit" }
    const refused = await execute([debit])
    assert.strictEqual(refused.body.result[0].error?.code, 10002)
    assert.strictEqual(await free(empty.sid, "BTC"), 0)
    await client.fund(empty.id, "BTC", "1")
    const retried = await execute([debit])
    assert.isNull(retried.body.result[0].error)
    assert.isFalse(retried.body.result[0].replayed)
    assert.strictEqual(await free(empty.sid, "BTC"), 0)
  })

  it("an unknown walletId is refused in its item (10030); system wallets are not addressable", async () => {
    for (const walletId of ["999999999", "-1", "-2"]) {
      const reply = await execute([
        { externalId: ext("nowallet"), walletId, currency: "USDT", amount: "1", direction: "credit" }
      ])
      assert.strictEqual(reply.status, 200, walletId)
      assert.strictEqual(reply.body.result[0].error?.code, 10030, walletId)
      assert.isNull(reply.body.result[0].txId)
    }
  })

  it("an unknown currency (10020) and too many decimals (10021) are refused in their items", async () => {
    const w = await freshWallet()
    const reply = await execute([
      { externalId: ext("cur"), walletId: w.id, currency: "XYZ", amount: "1", direction: "credit" },
      { externalId: ext("dec"), walletId: w.id, currency: "EUR", amount: "1.001", direction: "credit" }
    ])
    assert.strictEqual(reply.body.result[0].error?.code, 10020)
    assert.strictEqual(reply.body.result[1].error?.code, 10021)
    assert.strictEqual(await free(w.sid, "EUR"), 0)
  })

  it("a malformed item (negative or zero amount, bad direction) rejects the whole request with 10001", async () => {
    const w = await freshWallet()
    for (const bad of [{ amount: "-1" }, { amount: "0" }, { direction: "sideways" }, { externalId: "" }]) {
      const reply = await execute([
        { externalId: ext("ok"), walletId: w.id, currency: "USDT", amount: "1", direction: "credit" },
        { externalId: ext("bad"), walletId: w.id, currency: "USDT", amount: "1", direction: "credit", ...bad }
      ])
      assert.strictEqual(reply.status, 400, JSON.stringify(bad))
      assert.strictEqual(reply.body.error?.code, 10001, JSON.stringify(bad))
    }
    const empty = await execute([])
    assert.strictEqual(empty.status, 400)
    assert.strictEqual(await free(w.sid, "USDT"), 0)
  })

  it("one failing item never fails its neighbours: good items apply, bad ones report", async () => {
    const a = await freshWallet()
    const b = await freshWallet()
    await client.fund(b.id, "USDT", "1")
    const reply = await execute([
      { externalId: ext("g1"), walletId: a.id, currency: "USDT", amount: "10", direction: "credit" },
      { externalId: ext("b1"), walletId: "999999998", currency: "USDT", amount: "1", direction: "credit" },
      { externalId: ext("g2"), walletId: b.id, currency: "USDT", amount: "1", direction: "debit" },
      { externalId: ext("b2"), walletId: b.id, currency: "USDT", amount: "1", direction: "debit" },
      { externalId: ext("b3"), walletId: a.id, currency: "EUR", amount: "0.001", direction: "credit" },
      { externalId: ext("g3"), walletId: a.id, currency: "EUR", amount: "2.25", direction: "credit" }
    ])
    assert.strictEqual(reply.status, 200)
    const errors = reply.body.result.map((r: any) => r.error?.code ?? null)
    // b's two debits race for one unit: exactly one of them applies.
    assert.strictEqual(errors[0], null)
    assert.strictEqual(errors[1], 10030)
    assert.sameMembers([errors[2], errors[3]], [null, 10002])
    assert.strictEqual(errors[4], 10021)
    assert.strictEqual(errors[5], null)
    assert.strictEqual(await free(a.sid, "USDT"), 10)
    assert.strictEqual(await free(a.sid, "EUR"), 2.25)
    assert.strictEqual(await free(b.sid, "USDT"), 0)
  })
})

describe("the wallet actor serializes spends", () => {
  it("50 concurrent debits each of the whole balance: exactly one succeeds", async () => {
    const w = await freshWallet()
    await client.fund(w.id, "USDT", "25")
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        execute([{ externalId: ext(`spend-${i}`), walletId: w.id, currency: "USDT", amount: "25", direction: "debit" }])
      )
    )
    const items = replies.map((r) => r.body.result[0])
    assert.strictEqual(items.filter((i) => i.error === null).length, 1)
    assert.strictEqual(items.filter((i) => i.error?.code === 10002).length, 49)
    assert.strictEqual(await free(w.sid, "USDT"), 0)
  })

  it("50 debits of the whole balance in one batch: exactly one succeeds", async () => {
    const w = await freshWallet()
    await client.fund(w.id, "BTC", "0.5")
    const reply = await execute(
      Array.from({ length: 50 }, (_, i) => ({
        externalId: ext(`batch-spend-${i}`),
        walletId: w.id,
        currency: "BTC",
        amount: "0.5",
        direction: "debit"
      }))
    )
    const items = reply.body.result
    assert.strictEqual(items.filter((i: any) => i.error === null).length, 1)
    assert.strictEqual(items.filter((i: any) => i.error?.code === 10002).length, 49)
    assert.strictEqual(await free(w.sid, "BTC"), 0)
  })

  it("concurrent credits and debits across many wallets all land: final balances are exact", async () => {
    const wallets = await Promise.all(Array.from({ length: 5 }, () => freshWallet()))
    const requests = wallets.flatMap((w) => [
      ...Array.from({ length: 10 }, (_, i) => ({
        externalId: ext(`mc-${i}`),
        walletId: w.id,
        currency: "USDC",
        amount: "1.1",
        direction: "credit"
      })),
      ...Array.from({ length: 4 }, (_, i) => ({
        externalId: ext(`md-${i}`),
        walletId: w.id,
        currency: "USDC",
        amount: "0.1",
        direction: "debit"
      }))
    ])
    // Credits first (so every debit is covered), each as its own request, all at once.
    await Promise.all(requests.filter((r) => r.direction === "credit").map((r) => execute([r])))
    const debits = await Promise.all(requests.filter((r) => r.direction === "debit").map((r) => execute([r])))
    for (const reply of debits) assert.isNull(reply.body.result[0].error)
    for (const w of wallets) assert.strictEqual(await free(w.sid, "USDC"), 10.6)
  })
})

describe("ledger_audit (C6): Σ = 0 per currency", () => {
  it("lists every catalogue currency and, after everything above, every sum is 0 and no user bucket is negative", async () => {
    const report = await audit()
    assert.includeMembers(
      report.sums.map((r) => r.currency),
      ["BTC", "ETH", "USDT", "USDC", "EUR", "USD"]
    )
    await assertLedgerSound()
  })

  it("stays sound while postings commit concurrently", async () => {
    const w = await freshWallet()
    const writes = Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        execute([{ externalId: ext(`aud-${i}`), walletId: w.id, currency: "EUR", amount: "0.01", direction: "credit" }])
      )
    )
    const audits = Promise.all(Array.from({ length: 5 }, () => audit()))
    const [, reports] = await Promise.all([writes, audits])
    for (const report of reports) {
      for (const row of report.sums) assert.strictEqual(row.total, "0", row.currency)
    }
    assert.strictEqual(await free(w.sid, "EUR"), 0.3)
    await assertLedgerSound()
  })

  // The hot tables carry no foreign keys (migration 0008): the audit is what would notice a writer
  // that committed a posting without its transaction. Planting one needs direct SQL.
  itWithServer("counts rows whose transaction is missing (orphanRows)", async () => {
    await assertLedgerSound()
    const plant = (statement: string) => withDatabase(service().databaseUrl!, (sql) => sql.unsafe(statement))
    await plant(`INSERT INTO postings (tx_id, op_tick, seq, wallet_id, currency, bucket, delta)
      VALUES (-424242, 0, 0, -1, 'EUR', 0, 1), (-424242, 0, 1, -1, 'EUR', 0, -1)`)
    assert.strictEqual((await audit()).orphanRows, 2)
    await plant("DELETE FROM postings WHERE tx_id = -424242")
    assert.strictEqual((await audit()).orphanRows, 0)
  })

  it("is documented in the OpenAPI document with its result shape", async () => {
    const spec = (await (await fetch(service().base + "/core/openapi.json")).json()) as any
    const operation = spec.paths["/private/v1/ledger_audit"]?.get
    assert.isDefined(operation)
    assert.include(JSON.stringify(spec.components.schemas.LedgerAuditOut ?? {}), "negativeUserBuckets")
    assert.include(JSON.stringify(spec.components.schemas.LedgerAuditOut ?? {}), "orphanRows")
  })

  it("needs service credentials", async () => {
    const anonymous = await client.call("GET", "/private/v1/ledger_audit")
    assert.strictEqual(anonymous.status, 401)
    const wrong = await client.call("GET", "/private/v1/ledger_audit", { bearer: "not-a-key" })
    assert.strictEqual(wrong.status, 401)
  })
})
