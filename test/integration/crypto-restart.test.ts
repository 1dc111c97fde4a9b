/**
 * kill -9 while a scanner pushes (C15, "nothing acknowledged may ever be lost"): the chain actor keeps
 * nothing that is not in the ledger, so after a restart the scanner resumes from its last
 * acknowledged block; a block that was in flight is either recorded (its re-push is a replay with the
 * same transactions) or not (its re-push appends it). Every deposit is credited exactly once and the
 * ledger audit holds. The database outlives the process (a fresh database on the server with
 * DATABASE_URL, else one embedded data directory reused by each start).
 */
import { afterAll, assert, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { addCryptoTerminal, pushBlock, someEvmAddress } from "../support/Chain.ts"
import { makeClient, type TestClient } from "../support/Client.ts"
import { createDatabase, dropDatabase } from "../support/Postgres.ts"
import { type RunningService, startService, usingRealPostgres } from "../support/Service.ts"

let databaseUrl: string | undefined
let dataDir: string | undefined
let service: RunningService | undefined
let client: TestClient

const boot = async () => {
  if (usingRealPostgres()) databaseUrl ??= await createDatabase(process.env.DATABASE_URL!)
  else dataDir ??= mkdtempSync(join(tmpdir(), "core-crypto-restart-"))
  service = await startService(usingRealPostgres() ? { databaseUrl } : { dataDir })
  client = makeClient(service)
}
afterAll(async () => {
  await service?.stop("SIGTERM", true)
  if (databaseUrl !== undefined) await dropDatabase(databaseUrl)
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
})

const blocks = 16
const block = (h: number, to: string) => ({
  height: h,
  hash: `k${h}`,
  parentHash: `k${h - 1}`,
  items: [{ txHash: `dep${h}`, to, amount: String(h) }]
})

it("kill -9 mid-push and while idle: the scanner resumes, each deposit is credited once", async () => {
  await boot()
  const t = await addCryptoTerminal(client, { confirmations: 3 })
  const to = someEvmAddress()
  const txOfKey = new Map<string, string>()
  const record = (reply: { body: any }, h: number) => {
    const txId = reply.body.result.items[0].txId as string
    const known = txOfKey.get(`dep${h}`)
    if (known !== undefined) assert.strictEqual(txId, known, `dep${h} is one transaction`)
    txOfKey.set(`dep${h}`, txId)
  }
  let acknowledged = 0
  for (let h = 1; h <= 6; h++) {
    const reply = await pushBlock(client, t.id, block(h, to))
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    record(reply, h)
    acknowledged = h
  }
  // Block 7 in flight when the process dies: its answer never arrives.
  const inFlight = pushBlock(client, t.id, block(7, to)).catch(() => undefined)
  await new Promise((r) => setTimeout(r, 5))
  await service!.stop("SIGKILL", true)
  await inFlight
  await boot()
  for (let h = acknowledged + 1; h <= 11; h++) {
    const reply = await pushBlock(client, t.id, block(h, to))
    assert.strictEqual(reply.status, 200, `height ${h}: ${JSON.stringify(reply.body)}`)
    record(reply, h)
    acknowledged = h
  }
  // A replay of an acknowledged block after the restart answers the same transactions.
  record(await pushBlock(client, t.id, block(5, to)), 5)
  // Killed while idle: the next block appends on the stored tip.
  await service!.stop("SIGKILL", true)
  await boot()
  for (let h = acknowledged + 1; h <= blocks; h++) {
    const reply = await pushBlock(client, t.id, block(h, to))
    assert.strictEqual(reply.status, 200, `height ${h}: ${JSON.stringify(reply.body)}`)
    assert.strictEqual(reply.body.result.tipHeight, h)
    record(reply, h)
  }
  assert.strictEqual(txOfKey.size, blocks)
  assert.strictEqual(new Set(txOfKey.values()).size, blocks, "one transaction per key")
  // Linked to one wallet, the deposits add up exactly: 1 + 2 + … + 16, final ones free, the rest lock_in.
  const payer = await client.party()
  const linked = await client.priv(
    "POST",
    "link_address_transactions",
    [...txOfKey.values()].map((txId) => ({ txId, walletId: payer.id }))
  )
  for (const item of linked.body.result) assert.isNull(item.error, JSON.stringify(item))
  const b = await client.bucketsOf(payer, "ETH")
  assert.strictEqual(b.free + b.lockIn, (blocks * (blocks + 1)) / 2)
  assert.strictEqual(b.lockIn, blocks + (blocks - 1), "the last two blocks are not final at 3 confirmations")
  await client.assertLedgerSound()
}, 240_000)
