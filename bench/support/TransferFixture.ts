/**
 * Fixtures of the transfer benchmark: `count` funded wallets with sessions on a running service
 * (the tests' client: private create_wallet, create_session, execute_transactions), the service's
 * ledger figures from the private monitoring_stats, and a CPU profile summary (bench/profile/top.ts).
 */
import { execFileSync } from "node:child_process"
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import type { TestClient } from "../../test/support/Client.ts"
import { root } from "../../test/support/Service.ts"

export interface BenchWallet { readonly id: string; readonly sid: string }

export const createFundedWallets = async (client: TestClient, count: number, amount: string): Promise<Array<BenchWallet>> => {
  const wallets: Array<BenchWallet> = new Array(count)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const wallet = await client.createWallet(String(810_000_000 + i), { name: `Bench ${i}` })
      await client.fund(wallet.id, "USDT", amount)
      wallets[i] = { id: wallet.id, sid: await client.createSession(wallet.id) }
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  return wallets
}

export interface LedgerFigures { readonly commits: number; readonly operations: number; readonly commitMsSum: number }

export const ledgerFigures = async (client: TestClient): Promise<LedgerFigures> => {
  const reply = await client.priv("GET", "monitoring_stats")
  const ledger = reply.body.result.ledger as { commits: number; operations: number; meanCommitMs: number }
  return { commits: ledger.commits, operations: ledger.operations, commitMsSum: ledger.meanCommitMs * ledger.commits }
}

/**
 * The main thread's profile of process `pid` in `directory` (`CPU.<date>.<time>.<pid>.0.<n>.cpuprofile`;
 * tsx's loader thread writes its own, mostly idle, as thread 1), if any.
 */
export const mainThreadProfile = (directory: string, pid: number): string | undefined => {
  try {
    return readdirSync(directory).filter((f) => f.endsWith(".cpuprofile") && f.includes(`.${pid}.0.`)).map((f) => join(directory, f))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]
  } catch {
    return undefined
  }
}

/** bench/profile/top.ts on `lastSeconds` of a profile ending `skipSeconds` before its end, as text. */
export const profileTop = (file: string, rows: number, lastSeconds: number, skipSeconds: number): string =>
  execFileSync(process.execPath, ["--import", "tsx", join(root, "bench/profile/top.ts"), file, String(rows),
    "--last", String(lastSeconds), "--skip-last", skipSeconds.toFixed(2)],
    { cwd: root, encoding: "utf8" })
