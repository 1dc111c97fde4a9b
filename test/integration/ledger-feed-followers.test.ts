/**
 * The ledger's change feeds over real HTTP against the real service, part one (SPEC "Events",
 * "Private", the gapless history polling recipe; CONTRACT C8, C10; ARCHITECTURE "Feeds and
 * long-polls"): a follower of list_last_updated_txs resuming from each answer's cursor while many
 * writers commit — through one process, and with a real PostgreSQL through two processes on one
 * database — sees every committed update exactly once, in strictly increasing update-tick order,
 * ending at each transaction's final idUpdate; a wallet's oldest-first history scan by update tick
 * sees every row of that wallet the same way; wait_cursor answers 202 when idle, 200 at once when
 * behind, and 200 promptly when a commit lands during the wait, including another process's commit
 * (LISTEN/NOTIFY).
 */
import { assert, describe, it } from "@effect/vitest"
import { twoProcessClients, type Reply, type TestClient } from "../support/Client.ts"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { feedWallets, journalPage, type Row, transactGet, type Wallet } from "../support/LedgerFeed.ts"
import { itWithServer, usingRealPostgres } from "../support/Service.ts"
import { seeded } from "../unit/Random.ts"

const { service, client } = serviceForFile()
const bothProcesses = twoProcessClients(service)
const wallet = feedWallets(client)

const waitCursor = (on: TestClient, cursor: string, timeoutSeconds: number) =>
  on.priv("GET", `wait_cursor?cursor=${cursor}&timeout=${timeoutSeconds}`)

/** The committed watermark, as wait_cursor reports it without waiting. */
const watermarkOf = async (on: TestClient): Promise<bigint> => {
  const reply = await on.priv("GET", "wait_cursor?cursor=0&timeout=0")
  assert.include([200, 202], reply.status)
  return BigInt(reply.body.cursor!)
}

// Writers ------------------------------------------------------------------------------------

interface Written {
  /** Every transaction the writers know committed (from the service's answers). */
  readonly txIds: Set<string>
  /** Those that involve a given wallet. */
  readonly byWallet: Map<string, Set<string>>
}

/**
 * `workers` concurrent writers, each doing `steps` operations through a random process: a treasury
 * credit (1–3 items), a full two-step transfer, a transfer cancelled after step one, or a transfer
 * left pending. Every txId an answer reports is recorded.
 */
const runWriters = async (
  clients: ReadonlyArray<TestClient>,
  wallets: ReadonlyArray<Wallet>,
  workers: number,
  steps: number,
  seed: number
): Promise<Written> => {
  const written: Written = { txIds: new Set(), byWallet: new Map() }
  const record = (txId: string, ...walletIds: Array<string>) => {
    written.txIds.add(txId)
    for (const id of walletIds) {
      if (!written.byWallet.has(id)) written.byWallet.set(id, new Set())
      written.byWallet.get(id)!.add(txId)
    }
  }
  const worker = async (index: number) => {
    const random = seeded(seed * 1000 + index)
    const pick = <A>(items: ReadonlyArray<A>): A => items[random.int(0, items.length - 1)]
    for (let step = 0; step < steps; step++) {
      const on = pick(clients)
      const roll = random.next()
      if (roll < 0.35) {
        const items = Array.from({ length: random.int(1, 3) }, (_, i) => ({
          externalId: `feed-${seed}-${index}-${step}-${i}`,
          walletId: pick(wallets).id,
          currency: "USDT",
          amount: `${random.int(1, 20)}.${random.digits(2)}`,
          direction: "credit"
        }))
        const reply = await on.priv("POST", "execute_transactions", items)
        assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
        reply.body.result.forEach((item: any, i: number) => {
          assert.isNull(item.error, JSON.stringify(item))
          record(item.txId, items[i].walletId)
        })
        continue
      }
      const sender = pick(wallets)
      let recipient = pick(wallets)
      while (recipient === sender) recipient = pick(wallets)
      const body = { recipient: recipient.id, currency: "USDT", amount: `0.${random.digits(2)}1` }
      const first = await on.transfer(sender.sid, body)
      if (first.status !== 200) {
        assertRejected(first, 400, 10002, JSON.stringify(first.body))
        continue
      }
      const { txId, confirmationCode } = first.body.result
      record(txId, sender.id, recipient.id)
      if (roll < 0.8) {
        const second = await pick(clients).confirmTransfer(sender.sid, body, txId, confirmationCode)
        assert.strictEqual(second.status, 200, JSON.stringify(second.body))
      } else if (roll < 0.92) {
        const cancelled = await pick(clients).cancelTx(sender.sid, txId)
        assert.strictEqual(cancelled.status, 200, JSON.stringify(cancelled.body))
      }
    }
  }
  await Promise.all(Array.from({ length: workers }, (_, i) => worker(i)))
  return written
}

/** Wallets funded so most transfers pass; the funding is itself part of the journal. */
const fundedWallets = async (count: number) => {
  const wallets = await Promise.all(Array.from({ length: count }, () => wallet()))
  for (const w of wallets) await client.fund(w.id, "USDT", "100")
  return wallets
}

/** Asserts each known transaction was last seen with its final idUpdate (transact_get, the authority). */
const assertFinalVersionsSeen = async (
  clients: ReadonlyArray<TestClient>,
  lastSeen: Map<string, bigint>,
  txIds: Iterable<string>
) => {
  const ids = [...txIds]
  const finals = await Promise.all(ids.map((id, i) => transactGet(clients[i % clients.length], id)))
  ids.forEach((id, i) => {
    assert.isNotNull(finals[i], `transaction ${id} answered as committed but transact_get finds nothing`)
    assert.isTrue(
      lastSeen.has(id),
      `transaction ${id} (idUpdate ${finals[i]!.idUpdate}) was never seen by the follower`
    )
    assert.strictEqual(
      String(lastSeen.get(id)),
      finals[i]!.idUpdate,
      `transaction ${id}: the follower's last version is not the final one`
    )
  })
}

// The journal follower -----------------------------------------------------------------------

/**
 * Follows list_last_updated_txs from cursor 0 while the writers run, alternating processes and
 * using small random page sizes; waits on wait_cursor when caught up. Stops once the writers are
 * done and it has reached the final watermark.
 */
const followJournal = async (clients: ReadonlyArray<TestClient>, writers: Promise<Written>, seed: number) => {
  const random = seeded(seed)
  const seen = new Set<string>()
  const lastSeen = new Map<string, bigint>()
  let cursor = "0"
  let top = 0n
  let finalWatermark: bigint | undefined
  let pages = 0
  void writers.then(async () => {
    finalWatermark = (await Promise.all(clients.map(watermarkOf))).reduce((a, b) => (a > b ? a : b))
  })
  for (;;) {
    const on = clients[pages % clients.length]
    const page = await journalPage(on, cursor, random.int(1, 40))
    pages++
    for (const row of page.rows) {
      const tick = BigInt(row.idUpdate)
      assert.isTrue(tick > top, `idUpdate ${row.idUpdate} of ${row.id} after ${top}: not strictly increasing`)
      const key = `${row.id}@${row.idUpdate}`
      assert.isFalse(seen.has(key), `${key} returned twice`)
      seen.add(key)
      lastSeen.set(row.id, tick)
      top = tick
    }
    assert.isTrue(BigInt(page.cursor) >= top, `cursor ${page.cursor} behind the last row ${top}`)
    assert.isTrue(BigInt(page.cursor) >= BigInt(cursor), `cursor went back from ${cursor} to ${page.cursor}`)
    cursor = page.cursor
    if (page.rows.length > 0) continue
    if (finalWatermark !== undefined && BigInt(cursor) >= finalWatermark) break
    await waitCursor(clients[random.int(0, clients.length - 1)], cursor, 1)
  }
  return { lastSeen, pages, versions: seen.size }
}

const followWhileWriting = async (clients: ReadonlyArray<TestClient>, seed: number) => {
  const wallets = await fundedWallets(8)
  const writers = runWriters(clients, wallets, 10, 30, seed)
  const [written, followed] = await Promise.all([writers, followJournal(clients, writers, seed)])
  assert.isAbove(written.txIds.size, 200)
  await assertFinalVersionsSeen(clients, followed.lastSeen, written.txIds)
  // Transfers update their row (step two, cancel): the follower saw more versions than transactions.
  assert.isAbove(followed.versions, written.txIds.size)
  await client.assertLedgerSound()
  return followed
}

describe("list_last_updated_txs: a follower sees every committed update exactly once (C8)", () => {
  it("one process (the embedded path without DATABASE_URL): concurrent writers, a follower from cursor 0", async () => {
    await followWhileWriting([client], 11)
  })

  itWithServer(
    "two processes on one database: writers through both, the follower reading from both",
    async () => {
      await followWhileWriting(await bothProcesses(), 12)
    },
    90_000
  )
})

// wait_cursor ------------------------------------------------------------------------------------

const timed = async <A>(work: () => Promise<A>) => {
  const started = performance.now()
  const value = await work()
  return { value, ms: performance.now() - started }
}

const waitAssertingPrompt = async (waiter: TestClient, committer: () => Promise<unknown>) => {
  const cursor = await watermarkOf(waiter)
  const waiting = timed(() => waitCursor(waiter, String(cursor), 10))
  await new Promise((r) => setTimeout(r, 300))
  await committer()
  const { value: reply, ms } = await waiting
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  assert.isTrue(reply.body.result.moved)
  assert.isTrue(BigInt(reply.body.cursor!) > cursor)
  assert.isBelow(ms, 3_000, "a commit during the wait must end it promptly")
}

describe("wait_cursor (C8): 202 when idle, 200 when the watermark moves", () => {
  it("idle with the current cursor: 202 after about the timeout, with the watermark in cursor", async () => {
    const cursor = await watermarkOf(client)
    const { value: reply, ms } = await timed(() => waitCursor(client, String(cursor), 2))
    assert.strictEqual(reply.status, 202, JSON.stringify(reply.body))
    assert.strictEqual(reply.body.cursor, String(cursor))
    assert.isFalse(reply.body.result.moved)
    assert.isAtLeast(ms, 1_900)
    assert.isBelow(ms, 4_000)
  })

  it("a cursor older than the watermark: 200 at once", async () => {
    const w = await wallet()
    await client.fund(w.id, "EUR", "1")
    const cursor = await watermarkOf(client)
    const { value: reply, ms } = await timed(() => waitCursor(client, String(cursor - 1n), 10))
    assert.strictEqual(reply.status, 200)
    assert.isTrue(reply.body.result.moved)
    assert.strictEqual(reply.body.cursor, String(cursor))
    assert.isBelow(ms, 1_000)
  })

  it("a commit during the wait (same process): 200 promptly", async () => {
    const w = await wallet()
    await waitAssertingPrompt(client, () => client.fund(w.id, "EUR", "2"))
  })

  it("several waiters at once are all woken by one commit", async () => {
    const w = await wallet()
    const cursor = await watermarkOf(client)
    // As many as one credential may park at once (C19 §8: LONGPOLL_MAX_PER_CREDENTIAL, default 8; a 9th is 429 10409).
    const waiting = Promise.all(Array.from({ length: 8 }, () => timed(() => waitCursor(client, String(cursor), 10))))
    await new Promise((r) => setTimeout(r, 300))
    await client.fund(w.id, "EUR", "3")
    for (const { value: reply, ms } of await waiting) {
      assert.strictEqual(reply.status, 200)
      assert.isBelow(ms, 3_000)
    }
  })

  it("a commit racing the start of the wait still ends it promptly (no lost wake-up)", async () => {
    // The commit is announced while the waiter is still reading the watermark: the waiter must not
    // then sleep through the whole timeout. Jitter spreads the commit across that window.
    const random = seeded(31)
    const w = await wallet()
    const slow: Array<number> = []
    for (let round = 0; round < 60; round++) {
      const cursor = await watermarkOf(client)
      const [{ value: reply, ms }] = await Promise.all([
        timed(() => waitCursor(client, String(cursor), 5)),
        new Promise((r) => setTimeout(r, random.int(0, 5))).then(() => client.fund(w.id, "EUR", "0.01"))
      ])
      assert.strictEqual(reply.status, 200)
      // A lost wake-up sleeps the whole 5 s; anything well below is the commit's own latency.
      if (ms > 4_000) slow.push(round)
    }
    assert.deepStrictEqual(slow, [], "rounds whose wait outlived a commit made during it")
  }, 150_000)

  it("needs service credentials", async () => {
    assert.strictEqual((await client.call("GET", "/private/v1/wait_cursor?cursor=0&timeout=0")).status, 401)
  })

  itWithServer(
    "a commit by the OTHER process during the wait: 200 promptly (LISTEN/NOTIFY)",
    async () => {
      const [first, second] = await bothProcesses()
      const w = await wallet()
      await waitAssertingPrompt(second, () => first.fund(w.id, "EUR", "4"))
      await waitAssertingPrompt(first, () => second.fund(w.id, "EUR", "5"))
    },
    90_000
  )
})

// Wallet history: the SPEC's gapless polling recipe ------------------------------------------

interface HistoryScanState {
  readonly seen: Set<string>
  readonly lastSeen: Map<string, bigint>
  top: bigint
  pages: number
}

/** One scan of the recipe: endTick fixed, startTick = greatest idUpdate + 1 after each page. */
const scanHistory = async (
  on: TestClient,
  target: Wallet,
  startTick: bigint,
  endTick: bigint,
  limit: number,
  state: HistoryScanState
) => {
  let start = startTick
  for (;;) {
    const reply: Reply = await on.call(
      "GET",
      `/core/v1/wallet/get_history_transactions?orderByUpdate=true&oldestFirst=true&startTick=${start}&endTick=${endTick}&limit=${limit}`,
      { sid: target.sid }
    )
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assert.match(reply.body.cursor ?? "", /^[0-9]+$/, "ApiResponse.cursor on a history page")
    state.pages++
    const rows = reply.body.result as Array<Row>
    for (const row of rows) {
      const tick = BigInt(row.idUpdate)
      assert.isTrue(tick >= start && tick < endTick, `idUpdate ${tick} outside [${start}, ${endTick})`)
      assert.isTrue(tick > state.top, `idUpdate ${tick} after ${state.top}: not strictly increasing`)
      assert.isTrue(row.walletFrom === target.id || row.walletTo === target.id, `row ${row.id} is not the wallet's`)
      const key = `${row.id}@${row.idUpdate}`
      assert.isFalse(state.seen.has(key), `${key} returned twice`)
      state.seen.add(key)
      state.lastSeen.set(row.id, tick)
      state.top = tick
    }
    if (rows.length === 0) return
    start = BigInt(rows[rows.length - 1].idUpdate) + 1n
  }
}

describe("get_history_transactions: the gapless polling recipe (SPEC, C10)", () => {
  it("scans by update tick while writers run see every row of the wallet, each final version once", async () => {
    // With a real PostgreSQL the writers and the scans go through both processes.
    const clients = usingRealPostgres() ? await bothProcesses() : [client]
    const wallets = await fundedWallets(5)
    const target = wallets[0]
    const state: HistoryScanState = { seen: new Set(), lastSeen: new Map(), top: -1n, pages: 0 }
    let done = false
    const writers = runWriters(clients, wallets, 8, 25, 21).finally(() => {
      done = true
    })
    let startTick = 0n
    let scans = 0
    // Each scan fixes endTick just past the committed watermark; the next starts where it ended.
    for (;;) {
      const finished = done
      const endTick = (await watermarkOf(clients[scans % clients.length])) + 1n
      await scanHistory(clients[scans % clients.length], target, startTick, endTick, 7, state)
      scans++
      startTick = endTick
      if (finished) break
    }
    const written = await writers
    const mine = written.byWallet.get(target.id) ?? new Set()
    assert.isAbove(mine.size, 20)
    await assertFinalVersionsSeen(clients, state.lastSeen, mine)
    assert.isAbove(scans, 1)

    // The same rows, read in one go after the writers stopped, agree with what the scans kept.
    const everything: HistoryScanState = { seen: new Set(), lastSeen: new Map(), top: -1n, pages: 0 }
    await scanHistory(client, target, 0n, (await watermarkOf(client)) + 1n, 1000, everything)
    assert.deepStrictEqual([...state.lastSeen.entries()].sort(), [...everything.lastSeen.entries()].sort())
  })

  it("the cursor of an ascending page is the next startTick; it never passes a fixed endTick", async () => {
    const target = await wallet()
    for (let i = 0; i < 5; i++) await client.fund(target.id, "EUR", String(i + 1))
    const all = await client.call(
      "GET",
      "/core/v1/wallet/get_history_transactions?orderByUpdate=true&oldestFirst=true&limit=1000",
      { sid: target.sid }
    )
    const rows = all.body.result as Array<Row>
    assert.strictEqual(rows.length, 5)
    const page = await client.call(
      "GET",
      "/core/v1/wallet/get_history_transactions?orderByUpdate=true&oldestFirst=true&limit=2",
      { sid: target.sid }
    )
    assert.strictEqual(page.body.cursor, String(BigInt(page.body.result[1].idUpdate) + 1n))
    const capped = await client.call(
      "GET",
      `/core/v1/wallet/get_history_transactions?orderByUpdate=true&oldestFirst=true&startTick=${rows[3].idUpdate}&endTick=${rows[4].idUpdate}&limit=10`,
      { sid: target.sid }
    )
    assert.deepStrictEqual(
      capped.body.result.map((r: Row) => r.id),
      [rows[3].id]
    )
    assert.isTrue(BigInt(capped.body.cursor!) <= BigInt(rows[4].idUpdate))
  })
})
