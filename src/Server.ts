/**
 * The composition root: configuration → database (migrated) → the platform (ledger writer, actor runtime,
 * currencies, tariffs, secrets) → the actors → one layer per feature (src/services/<feature>/Feature.ts, each over
 * the ones below it) → the HTTP API, one routes layer per feature (src/http/<feature>/Routes.ts), behind the C19
 * edge rules, plus the private monitoring server.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiSwagger } from "effect/http-api"
import { ChainEntityLayer } from "../actors/chain/Behaviour.ts"
import { CodeEntityLayer } from "../actors/code/Behaviour.ts"
import { InvestmentEntityLayer } from "../actors/invest/Behaviour.ts"
import { PaymentOrderEntityLayer } from "../actors/payment/Behaviour.ts"
import { PayoutSettlementLayer } from "../actors/payment/PayoutSettlement.ts"
import { RoomEntityLayer } from "../actors/room/Behaviour.ts"
import { WalletEntityLayer } from "../actors/wallet/Behaviour.ts"
import { Api } from "../schema/Api.ts"
import { MerchantAuthLive, ServiceAuthLive, SessionAuthLive } from "./http/Auth.ts"
import { EdgeRules } from "./http/EdgeRules.ts"
import { EnvelopeLayer } from "./http/EnvelopeMiddleware.ts"
import { makePublicServer } from "./http/NodeServer.ts"
import { RateLimits } from "./http/RateLimits.ts"
import { CryptoRoutes } from "./http/crypto/Routes.ts"
import { ExchangeRoutes } from "./http/exchange/Routes.ts"
import { FederationRoutes } from "./http/federation/Routes.ts"
import { FederationWebhookRoute } from "./http/federation/FederationWebhookRoute.ts"
import { GeneralRoutes } from "./http/general/Routes.ts"
import { InvestRoutes } from "./http/invest/Routes.ts"
import { LedgerRoutes } from "./http/ledger/Routes.ts"
import { PaymentsPages, PaymentsRoutes } from "./http/payments/Routes.ts"
import { WalletsRoutes } from "./http/wallets/Routes.ts"
import { ChangeNotices } from "./platform/ChangeNotices.ts"
import { AppConfigService } from "./platform/Config.ts"
import { ActorRuntime } from "./platform/ActorRuntime.ts"
import { AccountKeys } from "./platform/crypto/AccountKeys.ts"
import { Currencies } from "./platform/Currencies.ts"
import { MigratedDatabase } from "./platform/db/Database.ts"
import { LedgerWriter } from "./platform/LedgerWriter.ts"
import { Metrics } from "./platform/monitoring/Metrics.ts"
import { MonitoringServer } from "./platform/monitoring/MonitoringServer.ts"
import { ScannerMetrics } from "./platform/monitoring/ScannerMetrics.ts"
import { Secrets } from "./platform/Secrets.ts"
import { Tariffs } from "./platform/Tariffs.ts"
import { TimeTicks } from "./platform/TimeTicks.ts"
import { TracingLayer } from "./platform/Tracing.ts"
import { WalletFlags } from "./platform/WalletFlags.ts"
import { CodesFeature } from "./services/codes/Feature.ts"
import { CryptoFeature } from "./services/crypto/Feature.ts"
import { Rates } from "./services/exchange/Rates.ts"
import { ExchangeFeature } from "./services/exchange/Feature.ts"
import { FederationFeature } from "./services/federation/Feature.ts"
import { InvestFeature } from "./services/invest/Feature.ts"
import { LedgerFeature } from "./services/ledger/Feature.ts"
import { PaymentsFeature } from "./services/payments/Feature.ts"
import { ClusterRetention } from "./services/shared/ClusterRetention.ts"
import { WalletsFeature } from "./services/wallets/Feature.ts"

// The XPUB_* account keys are read first: a malformed one stops the start before the database opens.
const Foundation = Layer.mergeAll(Metrics.layer, ChangeNotices.layer).pipe(
  Layer.provideMerge(MigratedDatabase),
  Layer.provideMerge(AccountKeys.fromEnv)
)

/** What actors and features stand on (src/platform/), the exchange rates every price reads, and the actor runtime. */
const Platform = Layer.mergeAll(
  Secrets.layer,
  TimeTicks.layer,
  Currencies.layer,
  Rates.layer,
  Tariffs.layer,
  LedgerWriter.layer,
  WalletFlags.layer,
  ScannerMetrics.layer,
  ActorRuntime
).pipe(Layer.provideMerge(Foundation))

/**
 * Every actor kind (actors/<kind>/Behaviour.ts). Crypto payouts settle with their withdrawals: the chain actor and
 * the signer queue read that hook with `Effect.serviceOption`, so it must be below them (the types cannot say so).
 * The retention of the runtime's message storage starts here, over the platform: the runtime has created its tables.
 */
const Actors = Layer.mergeAll(
  ClusterRetention,
  WalletEntityLayer,
  CodeEntityLayer,
  PaymentOrderEntityLayer,
  InvestmentEntityLayer,
  RoomEntityLayer,
  ChainEntityLayer
).pipe(Layer.provideMerge(PayoutSettlementLayer))

/** The features, each over the ones below it (its Feature.ts names what it holds). */
const Features = FederationFeature.pipe(
  Layer.provideMerge(PaymentsFeature),
  Layer.provideMerge(InvestFeature),
  Layer.provideMerge(CryptoFeature),
  Layer.provideMerge(CodesFeature),
  Layer.provideMerge(ExchangeFeature),
  Layer.provideMerge(WalletsFeature),
  Layer.provideMerge(Actors),
  Layer.provideMerge(LedgerFeature),
  Layer.provideMerge(Platform)
)

const ApiRoutes = HttpApiBuilder.layer(Api, { openapiPath: "/core/openapi.json" }).pipe(
  Layer.provide([
    GeneralRoutes,
    WalletsRoutes,
    LedgerRoutes,
    ExchangeRoutes,
    CryptoRoutes,
    InvestRoutes,
    PaymentsRoutes,
    FederationRoutes
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
    return HttpRouter.serve(Layer.mergeAll(ApiRoutes, Docs, EnvelopeLayer, PaymentsPages, FederationWebhookRoute), {
      disableLogger: true,
      disableListenLog: true
    }).pipe(
      Layer.provide(NodeHttpServer.layer(makePublicServer(metrics, limits), { port: config.port, host: config.host }))
    )
  })
)

export const AppLayer = Layer.mergeAll(PublicServer, MonitoringServer).pipe(
  Layer.provide(Edge),
  Layer.provide(Features),
  Layer.provide(AppConfigService.fromEnv),
  Layer.provide(TracingLayer)
)
