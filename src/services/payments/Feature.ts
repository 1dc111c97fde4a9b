/**
 * The payment gateway (C16): orders and their expiry sweep, the merchant feed, statistics, refunds, crypto and
 * card payments (the `Acquirer` is the sandbox shipped with the service, off unless ACQUIRER=sandbox; a real
 * provider is another layer of that service) with their reconciliation, merchant webhooks and their dispatcher,
 * payout orders.
 */
import { Layer } from "effect"
import { AcquirerSecret } from "./acquiring/AcquirerSecret.ts"
import { AcquiringReconcileCron } from "./acquiring/AcquiringReconcile.ts"
import { PaymentCards } from "./acquiring/PaymentCards.ts"
import { SandboxAcquirerLayer } from "./acquiring/SandboxAcquirer.ts"
import { MerchantFeed } from "./MerchantFeed.ts"
import { MerchantWebhooks, WebhookDispatcher } from "./MerchantWebhooks.ts"
import { PaymentCrypto } from "./PaymentCrypto.ts"
import { PaymentExpirySweep } from "./PaymentExpiry.ts"
import { PaymentOrders } from "./PaymentOrders.ts"
import { PaymentPayouts } from "./PaymentPayouts.ts"
import { PaymentRefunds } from "./PaymentRefunds.ts"
import { PaymentStats } from "./PaymentStats.ts"
import { PayoutCodes } from "./PayoutCodes.ts"

const Orders = Layer.mergeAll(
  MerchantFeed.layer,
  PaymentStats.layer,
  PaymentRefunds.layer,
  PaymentCrypto.layer,
  WebhookDispatcher.pipe(Layer.provideMerge(MerchantWebhooks.layer))
).pipe(Layer.provideMerge(PaymentOrders.layer), Layer.provideMerge(PaymentExpirySweep))

const Cards = AcquiringReconcileCron.pipe(
  Layer.provideMerge(PaymentCards.layer),
  Layer.provideMerge(SandboxAcquirerLayer),
  Layer.provideMerge(AcquirerSecret.layer),
  Layer.provideMerge(Orders)
)

export const PaymentsFeature = PaymentPayouts.layer.pipe(Layer.provide(PayoutCodes.layer), Layer.provideMerge(Cards))
