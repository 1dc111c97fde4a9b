/**
 * WORKERS (src/Supervisor.ts): the service as several processes sharing one HTTP port on one
 * PostgreSQL, the runners of one cluster (each owns some shards). With two workers, requests reach both (each worker's own monitoring port counts its
 * requests and its ledger commits), two-step transfers through the shared port settle exactly
 * once with the ledger sound, and SIGTERM stops both cleanly (exit 0). WORKERS is checked before
 * anything starts: out of range, or above 1 without DATABASE_URL, the service exits 1 and says why.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { makeClient } from "../support/Client.ts"
import { shardsSettledAt } from "../support/ClusterRunners.ts"
import { itWithServer, root, type RunningService, startArgs, startService } from "../support/Service.ts"

let service: RunningService | undefined
afterAll(async () => {
  await service?.stop()
})

/** The `<name>_count` total of a Prometheus histogram (all label sets) on a monitoring endpoint. */
const countOf = async (monitoring: string, name: string): Promise<number> => {
  const text = await (await fetch(monitoring + "/metrics")).text()
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}_count`))
    .reduce((sum, line) => sum + Number(line.split(" ").pop()), 0)
}

const waitHealthy = async (monitoring: string) => {
  const since = Date.now()
  for (;;) {
    try {
      if ((await fetch(monitoring + "/health", { signal: AbortSignal.timeout(2_000) })).status === 200) return
    } catch {
      /* not yet */
    }
    if (Date.now() - since > 60_000)
      throw new Error(`${monitoring}/health did not answer in 60 s; the service said:\n${service?.log()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe("WORKERS=2 on one PostgreSQL", () => {
  itWithServer(
    "both processes serve the port and commit; transfers settle once, the ledger is sound; SIGTERM exits 0",
    async () => {
      service = await startService({ env: { WORKERS: "2" }, monitoringPorts: 2 })
      const monitors = [service.monitoring, `http://127.0.0.1:${Number(new URL(service.monitoring).port) + 1}`]
      for (const monitor of monitors) await waitHealthy(monitor)
      const client = makeClient(service)
      const parties = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const wallet = await client.createWallet(String(7_700_100 + i))
          await client.fund(wallet.id, "USDT", "10")
          return { id: wallet.id, sid: await client.createSession(wallet.id) }
        })
      )
      // Fresh connections (no keep-alive): the primary deals each to the next worker.
      const post = async (sid: string, query: string, body: unknown) => {
        const reply = await fetch(service!.base + "/core/v1/wallet/internal_transfer" + query, {
          method: "POST",
          headers: { "content-type": "application/json", cookie: `sid=${sid}`, connection: "close" },
          body: JSON.stringify(body)
        })
        return { status: reply.status, body: (await reply.json()) as any }
      }
      const transfers = parties.flatMap((from, i) =>
        [1, 2, 3].map(() => ({ from, to: parties[(i + 1) % parties.length] }))
      )
      await Promise.all(
        transfers.map(async ({ from, to }) => {
          const body = { recipient: to.id, currency: "USDT", amount: 1 }
          const one = await post(from.sid, "", body)
          assert.strictEqual(one.status, 200, JSON.stringify(one.body))
          const two = await post(
            from.sid,
            `?confirmationTimetick=${one.body.result.txId}&confirmationCode=${one.body.result.confirmationCode}`,
            body
          )
          assert.strictEqual(two.body.result?.confirmationStatusCode, "Confirmed", JSON.stringify(two.body))
        })
      )
      // Each sent 3 and received 3: every balance is back to 10, nothing doubled or lost.
      for (const party of parties) assert.strictEqual((await client.balance(party.sid, "USDT"))?.freeBalance, 10)
      await client.assertLedgerSound()
      for (const monitor of monitors) {
        assert.isAbove(
          await countOf(monitor, "http_request_duration_seconds"),
          0,
          `${monitor}: this worker answered no request`
        )
        assert.isAbove(
          await countOf(monitor, "ledger_commit_batch_size"),
          0,
          `${monitor}: this worker committed nothing`
        )
      }
      // The two workers are the runners of one cluster: each comes to own some of the 300 shards, together all.
      await shardsSettledAt(monitors, 300)
      const code = await service.stop()
      service = undefined
      assert.strictEqual(code, 0)
    },
    120_000
  )
})

describe("WORKERS is checked at start", () => {
  const startWith = (env: Record<string, string>) =>
    new Promise<{ code: number | null; output: string }>((done) => {
      const child = spawn(process.execPath, startArgs, {
        cwd: root,
        env: { ...process.env, PORT: "0", MONITORING_PORT: "0", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout!.on("data", (chunk) => (output += chunk))
      child.stderr!.on("data", (chunk) => (output += chunk))
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
      child.once("exit", (code) => {
        clearTimeout(timer)
        done({ code, output })
      })
    })

  it("above 1 without DATABASE_URL (the embedded database serves one process): exit 1, says why", async () => {
    const { code, output } = await startWith({ WORKERS: "2", DATABASE_URL: "" })
    assert.strictEqual(code, 1)
    assert.include(output, "WORKERS: more than one process needs DATABASE_URL")
  }, 40_000)

  it("RUNNER_ADDRESS malformed, or without DATABASE_URL (runners share a server): exit 1, says why", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "core-runner-"))
    const malformed = await startWith({ RUNNER_ADDRESS: "localhost", DATA_DIR: dataDir, PORT: "1" })
    assert.strictEqual(malformed.code, 1)
    assert.include(malformed.output, "RUNNER_ADDRESS: must be host:port")
    const alone = await startWith({ RUNNER_ADDRESS: "127.0.0.1:34431", DATABASE_URL: "", DATA_DIR: dataDir, PORT: "1" })
    assert.strictEqual(alone.code, 1)
    assert.include(alone.output, "RUNNER_ADDRESS: runners of one cluster share a PostgreSQL server")
    rmSync(dataDir, { recursive: true, force: true })
  }, 40_000)

  it("not an integer from 1 to 16: exit 1, says why", async () => {
    for (const workers of ["0", "17", "two", "-1"]) {
      const { code, output } = await startWith({ WORKERS: workers })
      assert.strictEqual(code, 1, workers)
      assert.include(output, "WORKERS: must be an integer from 1 to 16", workers)
    }
  }, 60_000)
})
