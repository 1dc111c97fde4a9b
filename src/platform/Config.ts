/**
 * Configuration (CONTRACT C1) and every limit of the service as a named constant: environment
 * variables with their defaults, read once at start.
 */
import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { parseServiceKeys, type ServiceKeySpec } from "./ServiceKeys.ts"

export interface AppConfig {
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly host: string
  readonly port: number
  readonly monitoringHost: string
  readonly monitoringPort: number
  /** C19 §2: scoped service keys (`[name@]scope:secret`, or a bare secret: admin). */
  readonly serviceKeys: ReadonlyArray<ServiceKeySpec>
  readonly logLevel: string
  readonly poolSize: number
  readonly maxResidentEntities: number
  /** Issue #26: the address other runners reach this one on (it listens there); none: a single runner. */
  readonly runnerAddress: Option.Option<RunnerHostPort>
  /** Issue #26: shards entities are spread over, fixed for the life of a database (sql/ClusterSettingsRepo.ts). */
  readonly shardCount: number
  readonly confirmationTtlSeconds: number
  readonly codeTtlSeconds: number
  /** CONTRACT C14 exchange settings. */
  readonly maxActiveOrdersPerWallet: number
  readonly chargebackDays: number
  readonly swapDriftPct: string
  /** CONTRACT C16: the base of an order's payUrl, and an order's default lifetime. */
  readonly publicBaseUrl: string
  readonly paymentOrderTtlSeconds: number
  /** CONTRACT C16: the spread (percent, decimal text) a cross-currency payment adds to the C14 rate. */
  readonly paymentFxSpreadPct: string
  /** C16: how often the sweeper expires orders past expiresAt that no timer expired (docs/DURABLE-TIMERS.md). */
  readonly paymentSweepSeconds: number
  /** How long effect/cluster keeps a processed persisted message (cluster_messages) before the retention job deletes it. */
  readonly clusterMessageRetentionDays: number
  /** C16: let webhook URLs name loopback, private and link-local hosts (a test or a closed network). */
  readonly webhookAllowPrivateAddresses: boolean
  /** C16 card acquiring (docs/CARDS.md): the webhook secret (unset: generated once, stored in the database). */
  readonly acquirerWebhookSecret: Option.Option<Redacted.Redacted>
  /** C16: a provider webhook whose timestamp is off by more than this is refused (401 10313). */
  readonly acquirerWebhookToleranceSeconds: number
  /** C16: an acquiring session nobody completed expires after this. */
  readonly acquiringSessionTtlSeconds: number
  /** C16: how often reconciliation asks the acquirer about Pending sessions (a periodic job's beat, 1..3600). */
  readonly acquiringReconcileSeconds: number
  /** C16: reconciliation asks about a session once it has been Pending this long. */
  readonly acquiringReconcileAfterSeconds: number
  /** C16 webhook delivery (docs/WEBHOOKS.md): an attempt's bound, the retry backoff's base and cap, the attempt budget. */
  readonly webhookTimeoutSeconds: number
  readonly webhookRetryBaseSeconds: number
  readonly webhookRetryMaxDelaySeconds: number
  readonly webhookMaxAttempts: number
  /** C17 investments (docs/INVESTMENTS.md): profit mode, managed accrual period, term bounds, early-close penalty, open cap. */
  readonly investProfitMode: "push" | "managed"
  readonly investAccrualSeconds: number
  readonly investMinTermSeconds: number
  readonly investMaxTermDays: number
  /** A decimal 0..100 of at most 8 places, as written ("0.5"). */
  readonly investEarlyClosePenaltyPct: string
  readonly investMaxOpenPerWallet: number
  /** C18 federation (docs/FEDERATION.md): inbound webhook clock tolerance, outbound call bound, reconciliation beat (0 = off). */
  readonly federationWebhookToleranceSeconds: number
  readonly federationHttpTimeoutSeconds: number
  readonly federationReconcileSeconds: number
  /** C19 §3, §7, §8 at the edge: origins besides PUBLIC_BASE_URL's, the request deadline, token buckets (0 off), waiters per credential (0 off). */
  readonly allowedOrigins: ReadonlyArray<string>
  readonly requestTimeoutSeconds: number
  readonly rateLimitCredentialRps: number
  readonly rateLimitIpRps: number
  readonly longPollMaxPerCredential: number
  /** C19 §1: the card acquirer; `off` (default) refuses card payments (10414), `sandbox` is C16's test acquirer. */
  readonly acquirer: "off" | "sandbox"
  /** C19 §6: the key stored secrets are sealed under (unset: DATA_DIR/secrets.key, generated once). */
  readonly secretsKey: Option.Option<Redacted.Redacted>
  /** C19 §6: federation partners may be called over plain http (tests, a closed network). */
  readonly federationAllowHttp: boolean
  /** C19 §9: distinct deposit addresses an order is given over its life (then 10412). */
  readonly paymentMaxAddressesPerOrder: number
}

export interface RunnerHostPort {
  readonly host: string
  readonly port: number
}

/** RUNNER_ADDRESS: `host:port` (an IPv6 host in brackets), the port 1..65535. */
export const parseRunnerAddress = (text: string): RunnerHostPort | string => {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]{0,252}):([0-9]{1,5})$/.exec(text.trim())
  const port = match === null ? NaN : Number(match[2])
  if (match === null || !(port >= 1 && port <= 65_535))
    return `RUNNER_ADDRESS: must be host:port, the address other runners reach this one on (got "${text}")`
  return { host: match[1].replace(/^\[(.*)\]$/, "$1"), port }
}

/** A setting the start cannot go on with: one line on stderr naming the variable, then the start fails. */
export const stopStart = (message: string) =>
  Effect.suspend(() => {
    console.error(`core wallet service: ${message}`)
    return Effect.die(new Error(message))
  })

/** ALLOWED_ORIGINS: comma-separated origins (`scheme://host[:port]`), each kept in its serialized form. */
const parseOrigins = (value: string): ReadonlyArray<string> | string => {
  const origins: Array<string> = []
  for (const [i, item] of value
    .split(",")
    .map((part) => part.trim())
    .entries()) {
    if (item.length === 0) continue
    let url: URL | undefined
    try {
      url = new URL(item)
    } catch {
      url = undefined
    }
    if (url === undefined || url.origin === "null" || url.pathname !== "/" || url.search !== "" || url.hash !== "")
      return `ALLOWED_ORIGINS: item ${i + 1} is not an origin (scheme://host[:port], nothing after it)`
    origins.push(url.origin)
  }
  return origins
}

/**
 * C16 Settings: PUBLIC_BASE_URL defaults to `http://HOST:PORT`, so payUrl, checkoutUrl, the sandbox's
 * webhook target and the federation webhookUrl follow the address the service listens on (an IPv6
 * host in brackets).
 */
export const defaultPublicBaseUrl = (host: string, port: number): string =>
  `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`

/** An integer setting in [min, max] (else the start fails naming it). */
const intIn = (name: string, fallback: number, min: number, max: number) =>
  Config.schema(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: min, maximum: max })),
    name
  ).pipe(Config.withDefault(fallback))

/** A percentage setting: a decimal 0..100 of at most 8 places (else the start fails naming it). */
const pctIn = (name: string, fallback: string) =>
  Config.String(name).pipe(
    Config.withDefault(fallback),
    Effect.flatMap((text) => {
      const value = text.trim()
      const match = /^([0-9]{1,3})(?:\.([0-9]{1,8}))?$/.exec(value)
      if (match === null || Number(match[1]) > 100 || (Number(match[1]) === 100 && /[1-9]/.test(match[2] ?? "")))
        return stopStart(`${name}: must be a decimal from 0 to 100 with at most 8 decimals (got "${text}")`)
      return Effect.succeed(value.replace(/^0+(?=[0-9])/, ""))
    })
  )

export class AppConfigService extends Context.Service<AppConfigService, AppConfig>()("core/Config") {
  static readonly fromEnv = Layer.effect(
    AppConfigService,
    Effect.gen(function* () {
      const databaseUrl = yield* Config.option(Config.Redacted("DATABASE_URL"))
      const keys = parseServiceKeys(yield* Config.String("SERVICE_KEYS").pipe(Config.withDefault("")))
      if (typeof keys === "string") return yield* stopStart(keys)
      const origins = parseOrigins(yield* Config.String("ALLOWED_ORIGINS").pipe(Config.withDefault("")))
      if (typeof origins === "string") return yield* stopStart(origins)
      const host = yield* Config.String("HOST").pipe(Config.withDefault("127.0.0.1"))
      const port = yield* Config.Port("PORT").pipe(Config.withDefault(8080))
      const publicBaseUrl = yield* Config.String("PUBLIC_BASE_URL").pipe(Config.withDefault(""))
      const database = Option.filter(databaseUrl, (url) => Redacted.value(url).trim().length > 0)
      const runnerText = (yield* Config.String("RUNNER_ADDRESS").pipe(Config.withDefault(""))).trim()
      const runnerAddress = runnerText.length === 0 ? undefined : parseRunnerAddress(runnerText)
      if (typeof runnerAddress === "string") return yield* stopStart(runnerAddress)
      if (runnerAddress !== undefined && Option.isNone(database))
        return yield* stopStart("RUNNER_ADDRESS: runners of one cluster share a PostgreSQL server: set DATABASE_URL")
      return AppConfigService.of({
        databaseUrl: database,
        dataDir: yield* Config.String("DATA_DIR").pipe(Config.withDefault("./data")),
        host,
        port,
        monitoringHost: yield* Config.String("MONITORING_HOST").pipe(Config.withDefault("127.0.0.1")),
        // Under WORKERS, worker i serves its own figures on MONITORING_PORT + i - 1 (src/Supervisor.ts).
        monitoringPort:
          (yield* Config.Port("MONITORING_PORT").pipe(Config.withDefault(9464))) +
          (yield* Config.Int("WORKER_INDEX").pipe(Config.withDefault(1))) -
          1,
        serviceKeys: keys,
        logLevel: yield* Config.String("LOG_LEVEL").pipe(Config.withDefault("info")),
        poolSize: yield* Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(10)),
        maxResidentEntities: yield* Config.Int("MAX_RESIDENT_ENTITIES").pipe(Config.withDefault(100_000)),
        runnerAddress: Option.fromNullishOr(runnerAddress),
        shardCount: yield* intIn("SHARD_COUNT", 300, 1, 10_000),
        confirmationTtlSeconds: yield* Config.Int("CONFIRMATION_TTL_SECONDS").pipe(Config.withDefault(600)),
        codeTtlSeconds: yield* Config.Int("CODE_TTL_SECONDS").pipe(Config.withDefault(86_400)),
        maxActiveOrdersPerWallet: yield* Config.Int("MAX_ACTIVE_ORDERS_PER_WALLET").pipe(Config.withDefault(50)),
        chargebackDays: yield* Config.Int("CHARGEBACK_DAYS").pipe(Config.withDefault(0)),
        swapDriftPct: yield* Config.String("SWAP_DRIFT_PCT").pipe(Config.withDefault("0.5")),
        publicBaseUrl:
          publicBaseUrl.trim().length > 0 ? publicBaseUrl.trim().replace(/\/+$/, "") : defaultPublicBaseUrl(host, port),
        paymentOrderTtlSeconds: yield* Config.Int("PAYMENT_ORDER_TTL_SECONDS").pipe(Config.withDefault(3_600)),
        paymentFxSpreadPct: yield* Config.schema(
          Schema.String.check(Schema.isPattern(/^[0-9]{1,3}(\.[0-9]{1,6})?$/)),
          "PAYMENT_FX_SPREAD_PCT"
        ).pipe(Config.withDefault("1")),
        paymentSweepSeconds: Number(
          yield* Config.schema(
            // 1..3600 (the sweep's beat as a periodic job, src/services/payments/PaymentExpiry.ts)
            Schema.String.check(Schema.isPattern(/^(?:[1-9][0-9]{0,2}|[1-2][0-9]{3}|3[0-5][0-9]{2}|3600)$/)),
            "PAYMENT_SWEEP_SECONDS"
          ).pipe(Config.withDefault("5"))
        ),
        clusterMessageRetentionDays: yield* Config.Int("CLUSTER_MESSAGE_RETENTION_DAYS").pipe(Config.withDefault(7)),
        webhookAllowPrivateAddresses: yield* Config.Boolean("WEBHOOK_ALLOW_PRIVATE_ADDRESSES").pipe(
          Config.withDefault(false)
        ),
        acquirerWebhookSecret: Option.filter(
          yield* Config.option(Config.Redacted("ACQUIRER_WEBHOOK_SECRET")),
          (secret) => Redacted.value(secret).length > 0
        ),
        acquirerWebhookToleranceSeconds: yield* intIn("ACQUIRER_WEBHOOK_TOLERANCE_SECONDS", 300, 1, 86_400),
        acquiringSessionTtlSeconds: yield* intIn("ACQUIRING_SESSION_TTL_SECONDS", 900, 1, 86_400),
        acquiringReconcileSeconds: yield* intIn("ACQUIRING_RECONCILE_SECONDS", 30, 1, 3_600),
        acquiringReconcileAfterSeconds: yield* intIn("ACQUIRING_RECONCILE_AFTER_SECONDS", 60, 0, 86_400),
        webhookTimeoutSeconds: yield* intIn("WEBHOOK_TIMEOUT_SECONDS", 10, 1, 60),
        webhookRetryBaseSeconds: yield* intIn("WEBHOOK_RETRY_BASE_SECONDS", 5, 1, 3_600),
        webhookRetryMaxDelaySeconds: yield* intIn("WEBHOOK_RETRY_MAX_DELAY_SECONDS", 3_600, 1, 86_400),
        webhookMaxAttempts: yield* intIn("WEBHOOK_MAX_ATTEMPTS", 8, 1, 50),
        investProfitMode: yield* Config.schema(Schema.Literals(["push", "managed"]), "INVEST_PROFIT_MODE").pipe(
          Config.withDefault("push" as const)
        ),
        investAccrualSeconds: yield* intIn("INVEST_ACCRUAL_SECONDS", 86_400, 1, 31_536_000),
        investMinTermSeconds: yield* intIn("INVEST_MIN_TERM_SECONDS", 60, 1, 31_536_000),
        investMaxTermDays: yield* intIn("INVEST_MAX_TERM_DAYS", 3_660, 1, 36_600),
        investEarlyClosePenaltyPct: yield* pctIn("INVEST_EARLY_CLOSE_PENALTY_PCT", "0"),
        investMaxOpenPerWallet: yield* intIn("INVEST_MAX_OPEN_PER_WALLET", 100, 1, 100_000),
        federationWebhookToleranceSeconds: yield* intIn("FEDERATION_WEBHOOK_TOLERANCE_SECONDS", 300, 1, 86_400),
        federationHttpTimeoutSeconds: yield* intIn("FEDERATION_HTTP_TIMEOUT_SECONDS", 10, 1, 120),
        federationReconcileSeconds: yield* intIn("FEDERATION_RECONCILE_SECONDS", 60, 0, 3_600),
        allowedOrigins: origins,
        requestTimeoutSeconds: yield* intIn("REQUEST_TIMEOUT_SECONDS", 30, 1, 600),
        rateLimitCredentialRps: yield* intIn("RATE_LIMIT_CREDENTIAL_RPS", 200, 0, 1_000_000),
        rateLimitIpRps: yield* intIn("RATE_LIMIT_IP_RPS", 100, 0, 1_000_000),
        longPollMaxPerCredential: yield* intIn("LONGPOLL_MAX_PER_CREDENTIAL", 8, 0, 10_000),
        acquirer: yield* Config.schema(Schema.Literals(["off", "sandbox"]), "ACQUIRER").pipe(
          Config.withDefault("off" as const)
        ),
        secretsKey: Option.filter(
          yield* Config.option(Config.Redacted("SECRETS_KEY")),
          (secret) => Redacted.value(secret).trim().length > 0
        ),
        federationAllowHttp: yield* Config.Boolean("FEDERATION_ALLOW_HTTP").pipe(Config.withDefault(false)),
        paymentMaxAddressesPerOrder: yield* intIn("PAYMENT_MAX_ADDRESSES_PER_ORDER", 5, 1, 1_000)
      })
    })
  )
}

/** Limits (TigerBeetle style: a bound on everything, in one place). */
export const limits = {
  sessionTtlSecondsDefault: 86_400,
  ledgerBatchMax: 1_024,
  ledgerQueueMax: 8_192,
  ledgerLingerMs: 1,
  walletMailboxMax: 1_024,
  walletIdleSeconds: 300,
  getWalletsPageMax: 1000,
  requestBodyBytesMax: 1_048_576,
  privateRoomsPerCreator: 5,
  ordersPageMax: 100,
  ordersWindowDays: 90,
  tradeInfoLevelsMax: 100,
  candlesMax: 1000,
  roomIdleSeconds: 600,
  /** effect/cluster reads due persisted messages (timers) this often: a timer fires within it. */
  clusterPollMs: 1_000,
  expirySweepBatchMax: 500,
  /** Merchant webhooks: how often the dispatcher looks for due events, how many a pass, how many attempts in flight. */
  webhookDispatchMs: 500,
  webhookDispatchBatchMax: 200,
  webhookInFlightMax: 32,
  retentionBatchMax: 1_000,
  retentionIntervalMinutes: 60,
  /** C19 §7: JSON nested deeper than this is refused (400 10001) before it is parsed. */
  jsonDepthMax: 64,
  /** C19 §8: token buckets kept per limit (idle full ones are dropped first; past this the oldest go). */
  rateLimitBucketsMax: 100_000
} as const
