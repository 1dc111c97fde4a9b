/**
 * Every feature's row kinds by name, for the one place that must find a kind from its name: an
 * operation that crossed an actor mailbox as data. A feature that adds a kind lists it here.
 */
import type { RowKind } from "../Ledger.ts"
import { AcquiringSessionDecides, AcquiringSessionInserts } from "./AcquiringRows.ts"
import { CodeBindings, CodeInserts } from "./CodeRows.ts"
import { FederationLinkInserts } from "./FederationRows.ts"
import { ChainHeads, ChainItems, CryptoTxInserts, CryptoTxUpdates } from "./CryptoRows.ts"
import { OrderInserts, OrderUpdates, Trades } from "./ExchangeRows.ts"
import { InvestmentInserts, InvestmentUpdates } from "./InvestmentRows.ts"
import { PaymentOrderPresets } from "./PaymentPresetRows.ts"
import { PaymentTraces } from "./PaymentTraceRows.ts"
import { PaymentOrderAddressClaims, PaymentOrderAddressDetaches, PaymentOrderIncomes } from "./PaymentCryptoRows.ts"
import { PaymentOrderInserts, PaymentOrderUpdates } from "./PaymentRows.ts"
import { PaymentRefundInserts } from "./RefundRows.ts"
import { PayoutWithdrawals } from "./PayoutRows.ts"
import { PaymentRefundSettles, RefundWithdrawals } from "./CryptoRefundRows.ts"

const all: ReadonlyArray<RowKind<any>> = [
  CodeInserts,
  CodeBindings,
  OrderInserts,
  OrderUpdates,
  Trades,
  ChainHeads,
  ChainItems,
  CryptoTxInserts,
  CryptoTxUpdates,
  PaymentOrderInserts,
  PaymentOrderUpdates,
  PaymentRefundInserts,
  PaymentOrderPresets,
  PaymentTraces,
  PayoutWithdrawals,
  PaymentOrderIncomes,
  PaymentOrderAddressDetaches,
  PaymentOrderAddressClaims,
  RefundWithdrawals,
  PaymentRefundSettles,
  AcquiringSessionInserts,
  AcquiringSessionDecides,
  InvestmentInserts,
  InvestmentUpdates,
  FederationLinkInserts
]

const byName = new Map(all.map((kind) => [kind.name, kind]))

export const rowKindNamed = (name: string): RowKind<any> => {
  const kind = byName.get(name)
  if (kind === undefined) throw new Error(`invariant: no ledger row kind named ${name}`)
  return kind
}
