/**
 * Wiring: configuration → database (migrated) → actor runtime and services → HTTP API with its
 * credential middleware and envelope → the public server, plus the private monitoring server.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { RunnerHealth, Runners, RunnerStorage, Sharding, ShardingConfig, SqlMessageStorage } from "effect/cluster"
import { Digest } from "effect/crypto"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiSwagger } from "effect/http-api"
import { ChainEntityLayer } from "../actors/chain/Behaviour.ts"
import { CodeEntityLayer } from "../actors/code/Behaviour.ts"
import { PaymentOrderEntityLayer } from "../actors/payment/Behaviour.ts"
import { InvestmentEntityLayer } from "../actors/invest/Behaviour.ts"
import { RoomEntityLayer } from "../actors/room/Behaviour.ts"
import { WalletEntityLayer } from "../actors/wallet/Behaviour.ts"
import { Api } from "../schema/Api.ts"
import { migrateClusterStorage } from "../sql/ClusterMessageRepo.ts"
import { AppConfigService, limits } from "./platform/Config.ts"
import { MigratedDatabase } from "./platform/db/Database.ts"
import { MerchantAuthLive, ServiceAuthLive, SessionAuthLive } from "./http/Auth.ts"
import { EdgeRules } from "./http/EdgeRules.ts"
import { EnvelopeLayer } from "./http/EnvelopeMiddleware.ts"
import { RateLimits } from "./http/RateLimits.ts"
import { PayPageRoutes } from "./http/payments/pages/PayPage.ts"
import { makePublicServer } from "./http/NodeServer.ts"
import { AddressHandlers, PrivateAddressHandlers } from "./http/crypto/AddressHandlers.ts"
import { GeneralHandlers } from "./http/general/GeneralHandlers.ts"
import {
  InvestHandlers,
  PaymentHandlers,
  PaymentSessionHandlers,
  PayordersHandlers
} from "./http/payments/AreaHandlers.ts"
import { MarketHandlers } from "./http/exchange/MarketHandlers.ts"
import { PaymentCryptoHandlers } from "./http/payments/PaymentCryptoHandlers.ts"
import { PaymentCardHandlers, PrivateAcquiringHandlers } from "./http/payments/PaymentCardHandlers.ts"
import { AcquiringWebhookRoute } from "./http/payments/acquirer/AcquiringWebhookRoute.ts"
import { FederationWebhookRoute } from "./http/federation/FederationWebhookRoute.ts"
import { FederationWalletHandlers, PrivateFederationHandlers } from "./http/federation/FederationHandlers.ts"
import { FederationOrders } from "./services/federation/FederationOrders.ts"
import { FederationReconcileCron } from "./services/federation/FederationReconcile.ts"
import { FederationWebhook } from "./services/federation/FederationWebhook.ts"
import { Partners } from "./services/federation/Partners.ts"
import { PartnerTransfers } from "./services/federation/PartnerTransfers.ts"
import { CheckoutRoutes } from "./http/payments/acquirer/CheckoutRoutes.ts"
import { AcquiringReconcileCron } from "./services/payments/acquiring/AcquiringReconcile.ts"
import { AcquirerSecret } from "./services/payments/acquiring/AcquirerSecret.ts"
import { SandboxAcquirerLayer } from "./services/payments/acquiring/SandboxAcquirer.ts"
import { PaymentCards } from "./services/payments/acquiring/PaymentCards.ts"
import { TracingLayer } from "./platform/Tracing.ts"
import { PrivateHandlers } from "./http/general/PrivateHandlers.ts"
import { PrivateLedgerHandlers } from "./http/ledger/PrivateLedgerHandlers.ts"
import { PrivatePaymentsHandlers } from "./http/payments/PrivatePaymentsHandlers.ts"
import { CryptoInfoHandlers, CryptoWalletReadsHandlers } from "./http/crypto/CryptoInfoHandlers.ts"
import { PaymentStatsHandlers, PrivatePaymentStatsHandlers } from "./http/payments/PaymentStatsHandlers.ts"
import { PublicHandlers } from "./http/general/PublicHandlers.ts"
import { PartnerInfoHandlers, ScannerHandlers } from "./http/crypto/ScannerHandlers.ts"
import { WalletHandlers } from "./http/wallets/WalletHandlers.ts"
import { WithdrawHandlers } from "./http/crypto/WithdrawHandlers.ts"
import { SignerHandlers } from "./http/crypto/SignerHandlers.ts"
import { CountedSharding } from "./platform/monitoring/ActorMetrics.ts"
import { Metrics } from "./platform/monitoring/Metrics.ts"
import { MonitoringServer } from "./platform/monitoring/MonitoringServer.ts"
import { ScannerMetrics } from "./platform/monitoring/ScannerMetrics.ts"
import { Credentials } from "./services/wallets/Credentials.ts"
import { Currencies } from "./platform/Currencies.ts"
import { Chains } from "./services/crypto/Chains.ts"
import { Codes } from "./services/codes/Codes.ts"
import { PaymentCrypto } from "./services/payments/PaymentCrypto.ts"
import { PaymentOrders } from "./services/payments/PaymentOrders.ts"
import { PaymentRefunds } from "./services/payments/PaymentRefunds.ts"
import { PaymentExpirySweep } from "./services/payments/PaymentExpiry.ts"
import { InvestmentSweep } from "./services/invest/InvestmentSweep.ts"
import { PrivateInvestHandlers } from "./http/invest/PrivateInvestHandlers.ts"
import { ClusterRetention } from "./services/shared/ClusterRetention.ts"
import { MerchantWebhooks, WebhookDispatcher } from "./services/payments/MerchantWebhooks.ts"
import { PaymentPayouts } from "./services/payments/PaymentPayouts.ts"
import { PayoutSettlementLayer } from "../actors/payment/PayoutSettlement.ts"
import { PayoutCodes } from "./services/payments/PayoutCodes.ts"
import { PayoutGateHandlers, PayoutsHandlers } from "./http/payments/PayoutHandlers.ts"
import { ExchangeOrders } from "./services/exchange/ExchangeOrders.ts"
import { MarketData } from "./services/exchange/MarketData.ts"
import { Rooms } from "./services/exchange/Rooms.ts"
import { Swaps } from "./services/exchange/Swaps.ts"
import { DebtCharges } from "./services/wallets/DebtCharges.ts"
import { Feeds } from "./services/ledger/Feeds.ts"
import { Journal } from "./services/ledger/Journal.ts"
import { LedgerAudit } from "./services/ledger/LedgerAudit.ts"
import { Recipients } from "./services/wallets/Recipients.ts"
import { Transfers } from "./services/wallets/Transfers.ts"
import { Withdrawals } from "./services/crypto/Withdrawals.ts"
import { SignerQueue } from "./services/crypto/SignerQueue.ts"
import { LedgerWriter } from "./platform/LedgerWriter.ts"
import { Rates } from "./services/exchange/Rates.ts"
import { Tariffs } from "./platform/Tariffs.ts"
import { ChangeNotices } from "./platform/ChangeNotices.ts"
import { WalletFlags } from "./platform/WalletFlags.ts"
import { SecondFactorGate } from "./services/wallets/SecondFactorGate.ts"
import { Terminals } from "./services/crypto/Terminals.ts"
import { Treasury } from "./services/wallets/Treasury.ts"
import { Wallets } from "./services/wallets/Wallets.ts"
import { Addresses } from "./services/crypto/Addresses.ts"
import { AccountKeys } from "./platform/crypto/AccountKeys.ts"
import { Investments } from "./services/invest/Investments.ts"
import { MerchantFeed } from "./services/payments/MerchantFeed.ts"
import { PaymentStats } from "./services/payments/PaymentStats.ts"
import { CryptoInfo } from "./services/crypto/CryptoInfo.ts"
import { TimeTicks } from "./platform/TimeTicks.ts"
import { Secrets } from "./platform/Secrets.ts"

/**
 * Single runner (the default): every entity in this process. Ordinary messages are volatile and never
 * touch storage; persisted ones (ClusterCron runs: the payment-order expiry sweep) are kept in
 * effect/cluster's SQL message storage (cluster_messages / cluster_replies, created by the layer itself)
 * and read when due every `limits.clusterPollMs` (docs/DURABLE-TIMERS.md). Runner storage stays in
 * memory: SqlRunnerStorage hangs on the embedded database (a reserved connection, a pool of one).
 * Every entity type registered through it has its lifecycle counted (monitoring/ActorMetrics.ts).
 * Messages pass by reference (`simulateRemoteSerialization: false`): nothing leaves the process, and
 * encoding then decoding each typed payload (a ledger operation, an order) cost about 100 µs of CPU
 * per order. The wire stays proven: test/actors/code-commit.test.ts runs on effect's TestRunner, which
 * keeps the default and serialises every message (the code actor's CommitWithDebit to a wallet among
 * them), and test/unit/wallet-orders.test.ts round-trips an order intent through its schema.
 */
const ActorRuntime = Layer.unwrap(
  AppConfigService.useSync((config) =>
    CountedSharding.pipe(
      Layer.provideMerge(
        Sharding.layer.pipe(
          Layer.provideMerge(Runners.layerNoop),
          Layer.provideMerge(
            SqlMessageStorage.layerStorage({}).pipe(
              Layer.provide(Layer.effectDiscard(Effect.orDie(migrateClusterStorage)))
            )
          ),
          Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop, Digest.layerWebCrypto]),
          Layer.provide(
            ShardingConfig.layer({
              entityMaxIdleTime: "5 minutes",
              entityMessagePollInterval: `${limits.clusterPollMs} millis`,
              maxResidentEntities: config.maxResidentEntities,
              simulateRemoteSerialization: false
            } as any)
          )
        )
      )
    )
  )
)

// The XPUB_* account keys are read first: a malformed one stops the start before the database opens.
const Foundation = Layer.mergeAll(Metrics.layer, ChangeNotices.layer).pipe(
  Layer.provideMerge(MigratedDatabase),
  Layer.provideMerge(AccountKeys.fromEnv)
)

const Core = Layer.mergeAll(
  Secrets.layer,
  TimeTicks.layer,
  Currencies.layer,
  Rates.layer,
  Tariffs.layer,
  LedgerWriter.layer,
  WalletFlags.layer,
  ActorRuntime
).pipe(Layer.provideMerge(Foundation))

const Lookups = Layer.mergeAll(
  Recipients.layer,
  Journal.layer,
  Feeds.layer,
  ScannerMetrics.layer,
  // Crypto payouts settle with their withdrawals (the chain actor and the signer queue call it).
  PayoutSettlementLayer
).pipe(Layer.provideMerge(Core))

const Actors = Layer.mergeAll(
  WalletEntityLayer,
  CodeEntityLayer,
  PaymentOrderEntityLayer,
  InvestmentEntityLayer,
  RoomEntityLayer,
  ChainEntityLayer,
  Rooms.layer,
  ExchangeOrders.layer
).pipe(Layer.provideMerge(Lookups))

const Services = Layer.mergeAll(
  Wallets.layer,
  SecondFactorGate.layer,
  Credentials.layer,
  Terminals.layer,
  Treasury.layer,
  LedgerAudit.layer,
  Transfers.layer,
  DebtCharges.layer,
  Codes.layer,
  MarketData.layer,
  Swaps.layer,
  Investments.layer,
  Chains.layer,
  Addresses.layer,
  CryptoInfo.layer,
  Withdrawals.layer,
  SignerQueue.layer
).pipe(Layer.provideMerge(Actors))

/** Services over the others (payment orders read terminals and schedule their expiry; the merchant feed maps orders as they do). */
const Gateway = Layer.mergeAll(
  MerchantFeed.layer,
  PaymentStats.layer,
  PaymentRefunds.layer,
  PaymentCrypto.layer,
  // Merchant webhooks: the service and its dispatcher (docs/WEBHOOKS.md).
  WebhookDispatcher.pipe(Layer.provideMerge(MerchantWebhooks.layer))
).pipe(
  Layer.provideMerge(PaymentOrders.layer),
  Layer.provideMerge(Layer.mergeAll(PaymentExpirySweep, ClusterRetention, InvestmentSweep)),
  Layer.provideMerge(Services)
)
/**
 * Card acquiring over payment orders (docs/CARDS.md): the `Acquirer` is the sandbox shipped with the
 * service (a real provider is another layer of that service), its webhook secret, card payments and
 * their reconciliation schedule.
 */
const Cards = AcquiringReconcileCron.pipe(
  Layer.provideMerge(PaymentCards.layer),
  Layer.provideMerge(SandboxAcquirerLayer),
  Layer.provideMerge(AcquirerSecret.layer),
  Layer.provideMerge(Gateway)
)
/** Payout orders over payment orders (docs/PAYMENTS.md "Payout orders"). */
const Payouts = PaymentPayouts.layer.pipe(Layer.provide(PayoutCodes.layer), Layer.provideMerge(Cards))
/** Federation with partner deployments (docs/FEDERATION.md): records, orders, the inbound webhook, reconciliation. */
const Federation = Layer.merge(FederationReconcileCron, FederationWebhook.layer).pipe(
  Layer.provideMerge(PartnerTransfers.layer),
  Layer.provideMerge(FederationOrders.layer),
  Layer.provideMerge(Partners.layer),
  Layer.provideMerge(Payouts)
)

const ApiRoutes = HttpApiBuilder.layer(Api, { openapiPath: "/core/openapi.json" }).pipe(
  Layer.provide([
    PublicHandlers,
    GeneralHandlers,
    WalletHandlers,
    WithdrawHandlers,
    MarketHandlers,
    InvestHandlers,
    PayordersHandlers,
    PaymentHandlers,
    PaymentSessionHandlers,
    PayoutsHandlers,
    PayoutGateHandlers,
    PaymentCryptoHandlers,
    PaymentCardHandlers,
    PrivateAcquiringHandlers,
    PrivateHandlers,
    PrivateLedgerHandlers,
    PrivatePaymentsHandlers,
    PrivateInvestHandlers,
    ScannerHandlers,
    PartnerInfoHandlers,
    SignerHandlers,
    AddressHandlers,
    PrivateAddressHandlers,
    CryptoInfoHandlers,
    CryptoWalletReadsHandlers,
    PaymentStatsHandlers,
    PrivatePaymentStatsHandlers,
    FederationWalletHandlers,
    PrivateFederationHandlers
  ]),
  Layer.provide([SessionAuthLive, ServiceAuthLive, MerchantAuthLive])
)

const Docs = HttpApiSwagger.layer(Api, { path: "/core/swagger/" })

/** C19 at the edge: the token buckets, and the rules every request meets before the router. */
const Edge = EdgeRules.layer.pipe(Layer.provideMerge(RateLimits.layer))

const PublicServer = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    const metrics = yield* Metrics
    const limits = yield* RateLimits
    return HttpRouter.serve(
      Layer.mergeAll(
        ApiRoutes,
        Docs,
        EnvelopeLayer,
        CheckoutRoutes,
        AcquiringWebhookRoute,
        FederationWebhookRoute,
        PayPageRoutes
      ),
      { disableLogger: true, disableListenLog: true }
    ).pipe(
      Layer.provide(NodeHttpServer.layer(makePublicServer(metrics, limits), { port: config.port, host: config.host }))
    )
  })
)

export const AppLayer = Layer.mergeAll(PublicServer, MonitoringServer).pipe(
  Layer.provide(Edge),
  Layer.provide(Federation),
  Layer.provide(AppConfigService.fromEnv),
  Layer.provide(TracingLayer)
)
