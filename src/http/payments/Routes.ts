/** The payment gateway (C16): merchant, gate, payer session, crypto, card, payouts, statistics, operator; and its pages (payment page, sandbox checkout, acquirer webhook). */
import { Layer } from "effect"
import { PaymentHandlers, PaymentSessionHandlers, PayordersHandlers } from "./MerchantHandlers.ts"
import { PaymentCryptoHandlers } from "./PaymentCryptoHandlers.ts"
import { PaymentCardHandlers, PrivateAcquiringHandlers } from "./PaymentCardHandlers.ts"
import { PayoutGateHandlers, PayoutsHandlers } from "./PayoutHandlers.ts"
import { PaymentStatsHandlers, PrivatePaymentStatsHandlers } from "./PaymentStatsHandlers.ts"
import { PrivatePaymentsHandlers } from "./PrivatePaymentsHandlers.ts"
import { CheckoutRoutes } from "./acquirer/CheckoutRoutes.ts"
import { AcquiringWebhookRoute } from "./acquirer/AcquiringWebhookRoute.ts"
import { PayPageRoutes } from "./pages/PayPage.ts"

export const PaymentsRoutes = Layer.mergeAll(
  PayordersHandlers,
  PaymentHandlers,
  PaymentSessionHandlers,
  PaymentCryptoHandlers,
  PaymentCardHandlers,
  PrivateAcquiringHandlers,
  PayoutsHandlers,
  PayoutGateHandlers,
  PaymentStatsHandlers,
  PrivatePaymentStatsHandlers,
  PrivatePaymentsHandlers
)
export const PaymentsPages = Layer.mergeAll(CheckoutRoutes, AcquiringWebhookRoute, PayPageRoutes)
