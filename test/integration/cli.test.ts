/**
 * The operator CLI (issue #28 item 2) against the running service, as an operator runs it
 * (`node scripts/cli.mjs …`, what `npx core-wallet` and `npm run cli` run): create a wallet, fund it,
 * read it, open a session and an app, the journal and the audit, all with `--json` for scripts; a
 * refusal is exit code 1 with the rule's tag, a bad amount is refused before anything is sent, an
 * unreachable service is exit code 3, and `--help` and `--completions` work on their own.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { join } from "node:path"
import { serviceForFile } from "../support/Fixtures.ts"
import { root } from "../support/Service.ts"

const { service, client } = serviceForFile()

/** One CLI run (asynchronous: the test's own keep-alive connections stay served meanwhile). */
const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; out: string; err: string }>((done) => {
    const child = spawn(process.execPath, [join(root, "scripts/cli.mjs"), ...args], {
      cwd: root,
      env: { ...process.env, CORE_URL: service().base, CORE_SERVICE_KEY: service().key, ...env },
      timeout: 60_000
    })
    let out = "",
      err = ""
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.once("close", (code) => done({ code, out, err }))
  })
const ok = async (args: ReadonlyArray<string>) => {
  const run = await cli([...args, "--json"])
  assert.strictEqual(run.code, 0, `${args.join(" ")}: ${run.err}${run.out}`)
  return JSON.parse(run.out.trim().split("\n").at(-1)!)
}

describe("core-wallet CLI", () => {
  it("wallet, funding, reads, session, app, journal and audit, as JSON", async () => {
    const wallet = await ok(["create-wallet", "--client-id", "8810001", "--name", "ops"])
    assert.match(wallet.id, /^[0-9]+$/)
    const funded = await ok(["fund", wallet.id, "USDT", "12.5", "--external-id", "cli-fund-1"])
    assert.strictEqual(funded[0].error, null)
    assert.strictEqual((await ok(["fund", wallet.id, "USDT", "12.5", "--external-id", "cli-fund-1"]))[0].replayed, true)
    assert.strictEqual((await ok(["wallet", wallet.id])).id, wallet.id)
    assert.isTrue((await ok(["wallets", "--client-id", "8810001"])).some((w: { id: string }) => w.id === wallet.id))
    const session = await ok(["create-session", wallet.id])
    assert.isString(session.sid)
    const app = await ok(["create-app", wallet.id, "cli shop"])
    assert.isString(app.pkey)
    const rotated = await ok(["rotate-app-key", app.appId])
    assert.notStrictEqual(rotated.pkey, app.pkey)
    assert.strictEqual((await ok(["set-app-enabled", app.appId, "off"])).enabled, false)
    assert.strictEqual((await ok(["set-app-enabled", app.appId, "on"])).enabled, true)
    assert.isArray((await ok(["rail-txs"])).result)
    const journal = await ok(["journal", "--limit", "1000"])
    assert.isArray(journal.result)
    assert.isString(journal.cursor)
    const audit = await ok(["audit"])
    assert.isTrue(JSON.stringify(audit).length > 2)
  })

  it("a refusal exits 1 naming the rule; a bad amount is refused before it is sent", async () => {
    const missing = await cli(["wallet", "987654321"])
    assert.strictEqual(missing.code, 1)
    assert.match(missing.err, /^refused: WalletNotFound: /)
    const asJson = await cli(["wallet", "987654321", "--json"])
    assert.strictEqual(asJson.code, 1)
    assert.strictEqual(JSON.parse(asJson.out).error.tag, "WalletNotFound")
    const party = await client.party()
    const negative = await cli(["fund", party.id, "USDT", "-5"])
    assert.strictEqual(negative.code, 1, negative.err)
    assert.match(negative.err, /refused/)
    const unknownTx = await cli(["release-withdrawal", "123456789"])
    assert.strictEqual(unknownTx.code, 1, unknownTx.err)
    assert.match(unknownTx.err, /^refused: /)
    const wrongKey = await cli(["audit"], { CORE_SERVICE_KEY: "not-a-key" })
    assert.strictEqual(wrongKey.code, 1)
    assert.match(wrongKey.err, /Unauthorized/)
    await client.assertLedgerSound("after the CLI's refusals")
  })

  it("an unreachable service exits 3; --help and --completions answer without one", async () => {
    const down = await cli(["audit"], { CORE_URL: "http://127.0.0.1:9" })
    assert.strictEqual(down.code, 3, down.err)
    const help = await cli(["fund", "--help"])
    assert.strictEqual(help.code, 0)
    assert.include(help.out, "--debit")
    const completions = await cli(["--completions", "bash"])
    assert.strictEqual(completions.code, 0)
    assert.include(completions.out, "core-wallet")
  })
})
