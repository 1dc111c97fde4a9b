/**
 * What the crypto address test files share: the BIP-39 test mnemonic's account keys as `XPUB_*`
 * settings, their published first addresses, the terminals of C15's networks, and small callers.
 */
import { assert } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { HDKey } from "@scure/bip32"
import { mnemonicToSeedSync } from "@scure/bip39"
import { deriveAddress, type DerivedNetwork } from "../../src/platform/crypto/Addresses.ts"
import type { TestClient } from "./Client.ts"
import { qs } from "./Fixtures.ts"
import { withDatabase } from "./Postgres.ts"
import { freePort, root, type RunningService, startArgs, startService, usingRealPostgres } from "./Service.ts"

const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
const master = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC))

/** Account keys: m/84'/0'/0' (published zpub), m/44'/60'/0', m/44'/195'/0'. */
export const ZPUB =
  "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"
export const XPUB_ETH = master.derive("m/44'/60'/0'").publicExtendedKey
export const XPUB_TRON = master.derive("m/44'/195'/0'").publicExtendedKey

/** Published addresses of index 0 (child 0/0) of those accounts. */
export const FIRST = {
  1: "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
  2: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
  3: "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH"
} as const

/** XPUB_BNB_SMART_CHAIN stays unset: create_address on network 4 is 10202. */
export const xpubEnv = { XPUB_BITCOIN: ZPUB, XPUB_ETHEREUM: XPUB_ETH, XPUB_TRON: XPUB_TRON }

const accounts: Record<1 | 2 | 3, HDKey> = {
  1: HDKey.fromExtendedKey(ZPUB, { public: 0x04b24746, private: 0x04b2430c }),
  2: HDKey.fromExtendedKey(XPUB_ETH),
  3: HDKey.fromExtendedKey(XPUB_TRON)
}
/** The address of index i, derived here from the account key. */
export const expectedAddress = (network: 1 | 2 | 3, index: number): string =>
  deriveAddress(network as DerivedNetwork, accounts[network], index)

export const SOLANA_HOT = "So11111111111111111111111111111111111111112"

export const Flag = { Deposit: 1, Withdraw: 2 } as const

export const cryptoHelpers = (client: TestClient) => {
  const addNetwork = async (t: Record<string, unknown>): Promise<string> => {
    const reply = await client.priv("POST", "add_network", {
      flags: Flag.Deposit | Flag.Withdraw,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: [],
      ...t
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result.id as string
  }
  const createAddress = (sid: string, tokenNetwork: string, fresh?: boolean) =>
    client.call(
      "GET",
      `/core/v1/wallet/create_address?${qs({ token_network: tokenNetwork, new: fresh === undefined ? undefined : String(fresh) })}`,
      { sid }
    )
  const listAddresses = (sid: string, tokenNetwork?: string, includeTechnicalState?: boolean) =>
    client.call(
      "GET",
      `/core/v1/wallet/list_addresses?${qs({
        token_network: tokenNetwork,
        includeTechnicalState: includeTechnicalState === undefined ? undefined : String(includeTechnicalState)
      })}`,
      { sid }
    )
  const blockList = (query: Record<string, string | number | undefined>) =>
    client.priv("GET", `address_block_list?${qs(query)}`)
  /** Every item of a terminal's watch list, paged. */
  const watchAll = async (tokenNetwork: string, limit = 1000): Promise<Array<any>> => {
    const items: Array<any> = []
    let cursor = "0"
    for (;;) {
      const reply = await blockList({ tokenNetwork, cursor, limit })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      items.push(...reply.body.result)
      if (reply.body.result.length === 0) return items
      cursor = reply.body.cursor!
    }
  }
  return { addNetwork, createAddress, listAddresses, blockList, watchAll }
}

/**
 * Starts the service (as `npm start` does) with these settings on a throwaway embedded database and
 * waits for it to exit by itself: its exit code and stderr (killed after 30 s: then exitCode is null).
 */
export const startFailing = async (env: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), "core-xpub-"))
  const childEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(await freePort()),
    MONITORING_PORT: String(await freePort()),
    SERVICE_KEYS: "test-key-xpub",
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...env
  }
  delete childEnv.DATABASE_URL
  const child = spawn(process.execPath, startArgs, { cwd: root, env: childEnv })
  let stderr = ""
  child.stderr.on("data", (chunk) => (stderr += chunk))
  const exitCode = await new Promise<number | null>((done) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      done(code)
    })
  })
  rmSync(dataDir, { recursive: true, force: true })
  return { exitCode, stderr }
}

/**
 * Runs `statement` on a running service's own database: over a connection to the server when it
 * has one; on the embedded path (PGlite, one process) the service is stopped, the statement runs on
 * its data directory, and it is started again on it. Returns the statement's value and the running
 * service (a new one after a restart; sessions live in the database and stay valid).
 */
export const onServiceDatabase = async <A>(
  running: RunningService,
  env: Record<string, string>,
  statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown, SqlClient.SqlClient>
): Promise<{ readonly value: A; readonly running: RunningService }> => {
  const run = (sql: SqlClient.SqlClient) => Effect.provideService(statement(sql), SqlClient.SqlClient, sql)
  if (usingRealPostgres()) return { value: await withDatabase(running.databaseUrl!, run), running }
  await running.stop("SIGTERM", true)
  const db = await PGlite.create(running.dataDir)
  const path = join(tmpdir(), `core-test-pglite-${process.pid}-${Date.now()}.sock`)
  const server = new PGLiteSocketServer({ db, path })
  await server.start()
  let value: A
  try {
    value = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          return yield* run(yield* SqlClient.SqlClient)
        })
      ).pipe(
        Effect.provide(PgClient.layer({ path, maxConnections: 1, username: "postgres", database: "postgres" }))
      ) as Effect.Effect<A>
    )
  } finally {
    await server.stop()
    await db.close()
    rmSync(path, { force: true })
  }
  return { value, running: await startService({ dataDir: running.dataDir, env }) }
}
