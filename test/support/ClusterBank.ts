/**
 * The bank test across runners (test/integration/cluster-runners.test.ts): concurrent transfers, code
 * redemptions and exchange orders against every live runner while runners are killed, a journal follower
 * beside them, and the checks at the end in SQL (what the service acknowledged is there once; every
 * balance is the sum of its postings).
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { Party, TestClient } from "./Client.ts"
import { journalPage } from "./LedgerFeed.ts"
import { withDatabase } from "./Postgres.ts"

export interface Acknowledged {
  /** Transfers whose step one answered (their txId), and those step two confirmed. */
  readonly reserved: Array<string>
  readonly transfers: Array<string>
  /** Codes created and then applied by another wallet (the code's transaction id). */
  readonly codes: Array<string>
  /** Exchange orders accepted (their id). */
  readonly orders: Array<string>
  /** Payment orders paid from a wallet (pay_internal answered Paid; the order's id). */
  readonly payments: Array<string>
  readonly failures: Map<string, number>
}

const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(Math.random() * items.length)]
const small = () => String(1 + Math.floor(Math.random() * 5))

/** A merchant's app and the internal terminal its payers pay through (C16). */
export interface Shop {
  readonly appId: string
  readonly pkey: string
  readonly terminal: string
}

/** One operation, on a client of a live runner, recording what was acknowledged. */
export const bankOperation = (parties: ReadonlyArray<Party>, shop: Shop, acked: Acknowledged) => {
  let nonce = 1
  const expect = (what: string, reply: { status: number; body: any }) => {
    if (reply.status !== 200) throw new Error(`${what} ${reply.status} ${reply.body.error?.code}`)
    return reply.body.result
  }
  return async (client: TestClient) => {
    const from = Math.floor(Math.random() * parties.length)
    const to = (from + 1 + Math.floor(Math.random() * (parties.length - 1))) % parties.length
    const roll = Math.random()
    if (roll < 0.5) {
      const body = { recipient: parties[to].id, currency: "USDT", amount: small() }
      const one = expect("step one", await client.transfer(parties[from].sid, body))
      acked.reserved.push(one.txId)
      expect("step two", await client.confirmTransfer(parties[from].sid, body, one.txId, one.confirmationCode))
      acked.transfers.push(one.txId)
    } else if (roll < 0.6) {
      // A payment order of the shop, started on the internal terminal and paid from a wallet.
      const order = expect(
        "put_payment_order",
        await client.call("POST", `/payorders/v1/put_payment_order?app_id=${shop.appId}`, {
          pkey: shop.pkey,
          body: { currency: "USDT", orderAmount: small(), externalId: `bank-${process.pid}-${nonce++}` }
        })
      )
      const gate = (action: string, sid?: string, body: unknown = {}) =>
        client.call("POST", `/payment/v1/${action}?code=${encodeURIComponent(order.code)}`, { sid, body })
      expect("order_start", await gate("order_start", undefined, { tokenNetworkId: shop.terminal }))
      const paid = expect("pay_internal", await gate("pay_internal", parties[from].sid))
      if (paid.state !== "Paid") throw new Error(`pay_internal ${paid.state}`)
      acked.payments.push(order.id)
    } else if (roll < 0.75) {
      const code = expect(
        "create code",
        await client.call("POST", "/core/v1/create_tx_code", {
          sid: parties[from].sid,
          body: { currency: "USDT", amount: small(), typeTx: 11 }
        })
      )
      expect(
        "apply code",
        await client.call("POST", `/core/v1/apply_code?code=${code.code}&client_nonce=${nonce++}`, {
          sid: parties[to].sid
        })
      )
      acked.codes.push(code.timetick)
    } else {
      // 0.001 BTC at 60,000 USDT, either side: crossing orders fill each other through the room's actor.
      const sell = Math.random() < 0.5
      const body = sell
        ? { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: "0.001", toAmount: "60" }
        : { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "60", toAmount: "0.001" }
      const order = expect(
        "order",
        await client.call("POST", "/core/v1/market/create_order", {
          sid: parties[from].sid,
          body: { clientNonce: nonce++, ...body }
        })
      )
      acked.orders.push(order.id)
    }
  }
}

/**
 * A follower of the journal (list_last_updated_txs) on whichever runner answers: every version it reads
 * comes after the last one (no repeat, no step back); `versions` keeps the last update seen per transaction.
 */
export const journalFollower = (live: () => ReadonlyArray<TestClient>) => {
  let cursor = "0"
  let last = 0n
  const versions = new Map<string, bigint>()
  const page = async () => {
    const { rows, cursor: next } = await journalPage(pick(live()), cursor, 500)
    for (const row of rows) {
      const update = BigInt(row.idUpdate)
      assert.isTrue(update > last, `journal: update ${update} after ${last}`)
      last = update
      versions.set(row.id, update)
    }
    cursor = next
    return rows.length
  }
  return {
    versions,
    /** One page; a runner that is not there (killed) is tried again on the next call. */
    step: () => page().catch((error: Error) => (error.name === "AssertionError" ? Promise.reject(error) : -1)),
    drain: async () => {
      while ((await page()) > 0) {
        /* until an empty page */
      }
    }
  }
}

/** The checks after the run, in the database itself. */
export const assertBankSound = (databaseUrl: string, acked: Acknowledged, follower: Map<string, bigint>) =>
  withDatabase(databaseUrl, (sql) =>
    Effect.gen(function* () {
      // Every acknowledged transfer and code is settled once (its id is the transaction's primary key).
      const settled = yield* sql<{ id: string; tx_state: number }>`
        SELECT id::text AS id, tx_state FROM transactions WHERE id = ANY(${[...acked.transfers, ...acked.codes].map(BigInt)})`
      assert.strictEqual(settled.length, acked.transfers.length + acked.codes.length)
      for (const row of settled) assert.strictEqual(row.tx_state & 8, 8, `transaction ${row.id}: ${row.tx_state}`)
      const orders = yield* sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM orders WHERE id = ANY(${acked.orders.map(BigInt)})`
      assert.strictEqual(orders[0].n, acked.orders.length)
      // No transfer moved money twice: the sender's postings of a settled one sum to -(amount + fee), the
      // recipient's to +amount; of one not settled (pending, cancelled), to 0.
      const wrong = yield* sql<{ id: string }>`
        SELECT t.id::text AS id FROM transactions t WHERE t.id = ANY(${acked.reserved.map(BigInt)})
          AND ((SELECT coalesce(sum(delta), 0) FROM postings WHERE tx_id = t.id AND wallet_id = t.wallet_from)
                <> CASE WHEN t.tx_state & 8 = 8 THEN -(t.amount + t.fee) ELSE 0 END
            OR (SELECT coalesce(sum(delta), 0) FROM postings WHERE tx_id = t.id AND wallet_id = t.wallet_to)
                <> CASE WHEN t.tx_state & 8 = 8 THEN t.amount ELSE 0 END)`
      assert.deepStrictEqual(wrong, [])
      // Nothing created from nothing: every balance is the sum of its postings.
      const drift = yield* sql<{ wallet_id: string }>`
        SELECT b.wallet_id::text AS wallet_id FROM balances b
        CROSS JOIN LATERAL (
          SELECT coalesce(sum(delta) FILTER (WHERE bucket = 0), 0) AS free,
                 coalesce(sum(delta) FILTER (WHERE bucket = 1), 0) AS lock_out,
                 coalesce(sum(delta) FILTER (WHERE bucket = 2), 0) AS lock_in,
                 coalesce(sum(delta) FILTER (WHERE bucket = 3), 0) AS lock_orders
          FROM postings p WHERE p.wallet_id = b.wallet_id AND p.currency = b.currency) s
        WHERE (b.free, b.lock_out, b.lock_in, b.lock_orders) IS DISTINCT FROM (s.free, s.lock_out, s.lock_in, s.lock_orders)`
      assert.deepStrictEqual(drift, [])
      // The follower skipped nothing: it read every transaction at its last version.
      const journal = yield* sql<{
        id: string
        id_update: string
      }>`SELECT id::text AS id, id_update::text AS id_update FROM transactions`
      const missed = journal.filter((row) => follower.get(row.id) !== BigInt(row.id_update))
      assert.deepStrictEqual(
        missed.slice(0, 5),
        [],
        `${missed.length} of ${journal.length} transactions missed by the follower`
      )
    })
  )

/**
 * Each periodic job ran once per beat across the runners, not once per runner: the passes claimed in
 * `job_leases` over `elapsedMs` are at most its beats, plus one start-up pass per service start
 * (a restarted runner catches up on the current beat).
 */
export const assertJobsOncePerBeat = (databaseUrl: string, elapsedMs: number, starts: number) =>
  withDatabase(databaseUrl, (sql) =>
    Effect.gen(function* () {
      const leases = yield* sql<{ job: string; passes: string }>`SELECT job, passes::text AS passes FROM job_leases`
      const passesOf = (job: string) => Number(leases.find((row) => row.job === job)?.passes ?? 0)
      for (const [job, periodMs] of [
        ["InvestmentSweep", 1_000],
        ["MerchantWebhookDispatcher", 500]
      ] as const) {
        const beats = Math.ceil(elapsedMs / periodMs) + 1
        const passes = passesOf(job)
        assert.isAtMost(passes, beats + starts, `${job}: ${passes} passes in ${beats} beats and ${starts} starts`)
        assert.isAtLeast(passes, Math.floor(beats / 2), `${job}: ${passes} passes in ${beats} beats`)
      }
    })
  )
