/**
 * The actor tier's fixture: the wallet and code actors with their real dependencies (migrated
 * database, currencies, the group-committing ledger writer) on the database the integration tests
 * use (a fresh database on the DATABASE_URL server, else embedded PGlite in a temp directory), but
 * no HTTP and no service process. The ledger writer is wrapped so a test can make the next N commits
 * fail with a chosen CommitFailure (`LedgerFaults`) and count the commits actors asked for.
 */
import { Context, Effect, Layer, Metric, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { LedgerOperation } from "../../sql/Ledger.ts"
import { AppConfigService } from "../../src/platform/Config.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"
import { WalletFlags } from "../../src/platform/WalletFlags.ts"
import { Currencies } from "../../src/platform/Currencies.ts"
import { MigratedDatabase } from "../../src/platform/db/Database.ts"
import { type CommitFailure, LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { Metrics } from "../../src/platform/monitoring/Metrics.ts"
import { LedgerAudit } from "../../src/services/ledger/LedgerAudit.ts"
import { assertAuditSound } from "./Audit.ts"
import { dropDatabase } from "./Postgres.ts"
import { usingRealPostgres } from "./Service.ts"
import { fillDataDir, newServerDatabase } from "./Template.ts"

/** The service's configuration for a test on this database (a server URL, or embedded in `dataDir`). */
export const testConfig = (databaseUrl: string | undefined, dataDir: string) =>
  AppConfigService.of({
    databaseUrl: databaseUrl === undefined ? Option.none() : Option.some(Redacted.make(databaseUrl)),
    dataDir,
    host: "127.0.0.1",
    port: 0,
    monitoringHost: "127.0.0.1",
    monitoringPort: 0,
    serviceKeys: [],
    logLevel: "warn",
    poolSize: 4,
    maxResidentEntities: 100_000,
    runnerAddress: Option.none(),
    shardCount: 300,
    confirmationTtlSeconds: 600,
    codeTtlSeconds: 86_400,
    maxActiveOrdersPerWallet: 50,
    chargebackDays: 0,
    swapDriftPct: "0.5",
    publicBaseUrl: "http://127.0.0.1:8080",
    paymentOrderTtlSeconds: 86_400,
    paymentFxSpreadPct: "1",
    paymentSweepSeconds: 5,
    clusterMessageRetentionDays: 7,
    webhookAllowPrivateAddresses: false,
    acquirerWebhookSecret: Option.none(),
    acquirerWebhookToleranceSeconds: 300,
    acquiringSessionTtlSeconds: 900,
    acquiringReconcileSeconds: 30,
    acquiringReconcileAfterSeconds: 60,
    webhookTimeoutSeconds: 10,
    webhookRetryBaseSeconds: 5,
    webhookRetryMaxDelaySeconds: 3_600,
    webhookMaxAttempts: 8,
    investProfitMode: "push",
    investAccrualSeconds: 86_400,
    investMinTermSeconds: 60,
    investMaxTermDays: 3_660,
    investEarlyClosePenaltyPct: "0",
    investMaxOpenPerWallet: 100,
    federationWebhookToleranceSeconds: 300,
    federationHttpTimeoutSeconds: 10,
    federationReconcileSeconds: 60,
    allowedOrigins: [],
    requestTimeoutSeconds: 30,
    rateLimitCredentialRps: 200,
    rateLimitIpRps: 100,
    longPollMaxPerCredential: 8,
    acquirer: "sandbox",
    secretsKey: Option.some(Redacted.make("00".repeat(32))),
    federationAllowHttp: true,
    paymentMaxAddressesPerOrder: 5
  })

/** Configuration for one test database (a copy of the run's migrated template): on the server, or embedded in a temp directory. */
const TestConfig = Layer.effect(
  AppConfigService,
  Effect.acquireRelease(
    Effect.promise(async () => {
      const databaseUrl = usingRealPostgres() ? await newServerDatabase(process.env.DATABASE_URL!) : undefined
      const dataDir = mkdtempSync(join(tmpdir(), "core-actors-"))
      if (databaseUrl === undefined) fillDataDir(dataDir)
      return testConfig(databaseUrl, dataDir)
    }),
    (config) =>
      Effect.promise(async () => {
        rmSync(config.dataDir, { recursive: true, force: true })
        if (Option.isSome(config.databaseUrl)) await dropDatabase(Redacted.value(config.databaseUrl.value))
      })
  )
)

/** Cues for the wrapped ledger writer: fail the next commits, and count what actors asked for. */
export class LedgerFaults extends Context.Service<
  LedgerFaults,
  {
    /** The next `times` commits fail with `failure` (nothing is written); later ones go through. */
    readonly failNext: (failure: CommitFailure, times: number) => Effect.Effect<void>
    /** Commits asked for since the last `reset` (failed ones included). */
    readonly attempts: () => number
    /** Clears the cue and the count. */
    readonly reset: Effect.Effect<void>
  }
>()("test/LedgerFaults") {}

const faultState = () => ({ failure: undefined as CommitFailure | undefined, left: 0, attempts: 0 })

const FaultyLedger = Layer.unwrap(
  Effect.sync(() => {
    const state = faultState()
    const faults = Layer.succeed(LedgerFaults)(
      LedgerFaults.of({
        failNext: (failure, times) =>
          Effect.sync(() => {
            state.failure = failure
            state.left = times
          }),
        attempts: () => state.attempts,
        reset: Effect.sync(() => {
          state.failure = undefined
          state.left = 0
          state.attempts = 0
        })
      })
    )
    /** An injected failure for this commit, if one is cued. */
    const cued = (): CommitFailure | undefined => {
      state.attempts += 1
      if (state.left === 0 || state.failure === undefined) return undefined
      state.left -= 1
      return state.failure
    }
    const writer = Layer.effect(
      LedgerWriter,
      LedgerWriter.useSync((real) =>
        LedgerWriter.of({
          commits: real.commits,
          commit: (operation: LedgerOperation) =>
            Effect.suspend(() => {
              const failure = cued()
              return failure === undefined ? real.commit(operation) : Effect.fail(failure)
            }),
          enqueue: (operation: LedgerOperation) =>
            Effect.suspend(() => {
              const failure = cued()
              return failure === undefined ? real.enqueue(operation) : Effect.succeed(Effect.fail(failure))
            })
        })
      )
    ).pipe(Layer.provide(LedgerWriter.layer))
    return Layer.merge(writer, faults)
  })
)

/**
 * What the actors stand on: migrated database (SqlClient), currencies, metrics, the ledger writer
 * that fails on cue, and the ledger audit.
 */
export const ActorPlatform = Layer.mergeAll(FaultyLedger, LedgerAudit.layer, WalletFlags.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(Currencies.layer, Metrics.layer, ChangeNotices.layer)),
  Layer.provideMerge(MigratedDatabase),
  Layer.provide(Layer.sync(Metric.MetricRegistry, () => new Map())),
  Layer.provideMerge(TestConfig)
)

/** The ledger audit (CONTRACT C6) straight from the service: Σ 0 per currency, no negative user bucket, no orphans. */
export const auditLedger = (where: string) =>
  LedgerAudit.use((audit) => audit.audit()).pipe(Effect.map((report) => assertAuditSound(report, where)))

let nextWallet = 2_000_000n
let nextTx = 9_000_000_000_000_000n

/** A user wallet row (ids of their own, far from the service's sequence); its actor loads it on first use. */
export const newWallet = Effect.fnUntraced(function* () {
  const sql = yield* SqlClient.SqlClient
  const id = nextWallet++
  yield* sql`INSERT INTO wallets (id, client_id, address, timetick_update) VALUES (${String(id)}, ${String(id)}, ${"Wtest" + id}, 0)`.pipe(
    Effect.orDie
  )
  return id
})

/** A fresh transaction id (the service's would be timeticks; the ledger only needs them unique). */
export const newTxId = () => nextTx++

/** A wallet's buckets of one currency and a transaction's state, read straight from SQL. */
export const ledgerOf = Effect.fnUntraced(function* (walletId: bigint, currency: string, txId?: bigint) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ free: string; lock_out: string; lock_orders: string }>`SELECT free::text AS free,
      lock_out::text AS lock_out, lock_orders::text AS lock_orders FROM balances WHERE wallet_id = ${String(walletId)} AND currency = ${currency}`.pipe(
    Effect.orDie
  )
  const tx =
    txId === undefined
      ? []
      : yield* sql<{ tx_state: number }>`SELECT tx_state FROM transactions WHERE id = ${String(txId)}`.pipe(
          Effect.orDie
        )
  return {
    free: BigInt(rows[0]?.free ?? "0"),
    lockOut: BigInt(rows[0]?.lock_out ?? "0"),
    lockOrders: BigInt(rows[0]?.lock_orders ?? "0"),
    txState: tx.length === 0 ? null : Number(tx[0].tx_state)
  }
})
