/** The whole HTTP contract: one group per area of SPEC "Base paths". */
import { HttpApi, OpenApi } from "effect/http-api"
import { AddressApi, PrivateAddressApi } from "./api/AddressApi.ts"
import { CryptoInfoApi, CryptoWalletReadsApi } from "./api/CryptoInfoApi.ts"
import { FederationWalletApi, PrivateFederationApi } from "./api/FederationApi.ts"
import { GeneralApi } from "./api/GeneralApi.ts"
import { InvestApi } from "./api/InvestApi.ts"
import { MarketApi } from "./api/MarketApi.ts"
import { PartnerInfoApi } from "./api/PartnerInfoApi.ts"
import { PaymentApi, PaymentSessionApi } from "./api/PaymentApi.ts"
import { PaymentStatsApi, PrivatePaymentStatsApi } from "./api/PaymentStatsApi.ts"
import { PaymentCardApi, PrivateAcquiringApi } from "./api/PaymentCardApi.ts"
import { PaymentCryptoApi } from "./api/PaymentCryptoApi.ts"
import { PayordersApi } from "./api/PayordersApi.ts"
import { PayoutGateApi, PayoutsApi } from "./api/PayoutsApi.ts"
import { PrivateApi } from "./api/PrivateApi.ts"
import { PrivateInvestApi } from "./api/PrivateInvestApi.ts"
import { PrivateLedgerApi } from "./api/PrivateLedgerApi.ts"
import { PrivatePaymentsApi } from "./api/PrivatePaymentsApi.ts"
import { PublicApi } from "./api/PublicApi.ts"
import { ScannerApi } from "./api/ScannerApi.ts"
import { SignerApi } from "./api/SignerApi.ts"
import { WalletApi } from "./api/WalletApi.ts"
import { WithdrawApi } from "./api/WithdrawApi.ts"
import { envelopeErrors } from "./OpenApiEnvelope.ts"

export class Api extends HttpApi.make("core")
  .add(PublicApi)
  .add(GeneralApi)
  .add(WalletApi)
  .add(WithdrawApi)
  .add(AddressApi)
  .add(MarketApi)
  .add(InvestApi)
  .add(PayordersApi)
  .add(PaymentApi)
  .add(PaymentSessionApi)
  .add(PayoutsApi)
  .add(PayoutGateApi)
  .add(PaymentCryptoApi)
  .add(PrivateApi)
  .add(PrivateLedgerApi)
  .add(PrivatePaymentsApi)
  .add(PrivateInvestApi)
  .add(ScannerApi)
  .add(PartnerInfoApi)
  .add(SignerApi)
  .add(PrivateAddressApi)
  .add(CryptoInfoApi)
  .add(CryptoWalletReadsApi)
  .add(PaymentStatsApi)
  .add(PrivatePaymentStatsApi)
  .add(PaymentCardApi)
  .add(PrivateAcquiringApi)
  .add(FederationWalletApi)
  .add(PrivateFederationApi)
  .annotateMerge(
    OpenApi.annotations({
      title: "Core wallet service",
      version: "1.0.0",
      description:
        "Every response is the envelope { result, error, id, cursor? }. " +
        "Errors carry a stable code; see the ErrorEnvelope schema.",
      transform: envelopeErrors
    })
  ) {}
