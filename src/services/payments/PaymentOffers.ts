/**
 * The terminals an order may be paid on (CONTRACT C16 "Payment gate → get_terminals"), each as SPEC's
 * TerminalOut plus its `quote`, and as the engine's offer (actors/payment OfferSchema) that order_start
 * and the pay actions hand to the order's actor.
 *
 * - PaymentOrder: the built-in internal terminal (typeNetwork 240, in the order currency, `requiresAuth`)
 *   and every Deposit, non-Hidden Card (100) or crypto (typeNetwork < 100) terminal. TransferOrder: the
 *   internal terminal plus the Withdraw, non-Hidden crypto terminals in the order currency.
 * - Fee fields: the Payment (payout: Payout) tariff rules (C7) of the terminal's currency that apply to
 *   the merchant wallet's group and the order's typeTx; feeFixed/feePercent of the rule that prices the
 *   quote; minAmount/maxAmount the lowest/highest bound of those rules (null: some rule is unbounded, or
 *   there is none).
 * - Price: same currency payAmount = orderAmount (rate "1"); otherwise orderAmount × rate(currency →
 *   payCurrency, C14) × (1 + PAYMENT_FX_SPREAD_PCT/100) rounded up (the engine's quotePayAmount); a
 *   preselected payAmount fixes it (rate = payAmount / orderAmount, spread 0); a locked terminal shows its
 *   snapshot. No rate: `quote` null and not available.
 * - `available`: the order can start there now — Created (not past expiresAt), a quote, payAmount within
 *   the bounds, under a preselection the preselected terminal only, and payable: the pay action there
 *   would not refuse (crypto payments need the network's XPUB or, on memo networks, the terminal's
 *   defaultHotAddress; crypto payouts are not served on memo networks); Started: its locked terminal.
 */
import { BigNumber } from "bignumber.js"
import { Effect } from "effect"
import { SystemWallet } from "../../../sql/Ledger.ts"
import { type OfferData, quotePayAmount } from "../../../actors/payment/Protocol.ts"
import type { PaymentOrderRow } from "../../../sql/PaymentOrderRepo.ts"
import type { Terminal } from "../../../sql/ReferenceRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import { TerminalNotFound } from "../../../schema/Errors.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import type { TerminalOut } from "../../../schema/Payments.ts"
import { NetworkType, TerminalFlag, type TxClass } from "../../../schema/Reference.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { AccountKeys } from "../../platform/crypto/AccountKeys.ts"
import { isDerivedNetwork, isMemoNetwork } from "../../platform/crypto/Addresses.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { quoteFee, ruleFor, type Tariff, Tariffs } from "../../platform/Tariffs.ts"
import { Rates } from "../exchange/Rates.ts"
import { Terminals } from "../crypto/Terminals.ts"

/** What the offers read of an order (a stored row, or the order put_payment_order is about to create). */
export type OfferOrder = Pick<
  PaymentOrderRow,
  | "kind"
  | "typeTx"
  | "stateCode"
  | "currency"
  | "orderAmount"
  | "merchantWallet"
  | "expiresAt"
  | "terminalId"
  | "method"
  | "payCurrency"
  | "payAmount"
  | "fee"
  | "profitWallet"
  | "rate"
  | "spreadPct"
  | "presetTerminalId"
  | "presetPayAmount"
> & {
  /** The merchant wallet's group when the caller has it (a stored row joins it); otherwise read. */
  readonly merchantGroup?: number
}

/** One terminal offered for one order: its wire shape and the engine's offer. */
export interface OrderOffer {
  readonly terminal: Terminal
  readonly out: TerminalOut
  readonly offer: OfferData
}

type Method = OfferData["method"]

/** How a terminal takes payments; null: not a payment terminal (e.g. a bank wire). */
export const methodOf = (terminal: Terminal): Method | null =>
  terminal.builtIn || terminal.typeNetwork === NetworkType.Internal
    ? "InternalPayment"
    : terminal.typeNetwork === NetworkType.Card
      ? "CardAcquiring"
      : terminal.typeNetwork < NetworkType.Card
        ? "CryptoTransfer"
        : null

const has = (terminal: Terminal, flag: number) => (terminal.flags & flag) !== 0

/** Whether C16 offers the terminal for an order of this kind and currency. */
const isOffered = (order: OfferOrder, terminal: Terminal): boolean => {
  const method = methodOf(terminal)
  if (terminal.builtIn) return true
  if (method === null || has(terminal, TerminalFlag.Hidden)) return false
  return order.kind === "PaymentOrder"
    ? has(terminal, TerminalFlag.Deposit)
    : method === "CryptoTransfer" && has(terminal, TerminalFlag.Withdraw) && terminal.currency === order.currency
}

/**
 * Whether the pay action of the order's kind on this terminal could go through (C16 `available`): a
 * crypto payment needs an address — the network's XPUB (derived networks, else pay_crypto is 10202) or
 * the terminal's defaultHotAddress (memo networks) —, and pay_transfer has no memo field, so crypto
 * payouts to memo networks are refused (10303).
 */
export const payableOn = (
  kind: OfferOrder["kind"],
  terminal: Terminal,
  hasXpub: (network: number) => boolean
): boolean => {
  if (terminal.builtIn || methodOf(terminal) !== "CryptoTransfer") return true
  if (kind === "TransferOrder") return !isMemoNetwork(terminal.typeNetwork)
  if (isDerivedNetwork(terminal.typeNetwork)) return hasXpub(terminal.typeNetwork)
  return terminal.defaultHotAddress !== null && terminal.defaultHotAddress.trim() !== ""
}

/** rate = payAmount / orderAmount (major units), canonical, 18 places when it does not terminate. */
const Ratio = BigNumber.clone({ DECIMAL_PLACES: 18, ROUNDING_MODE: BigNumber.ROUND_HALF_EVEN })
export const fixedRate = (payAmount: bigint, payDecimals: number, orderAmount: bigint, orderDecimals: number) =>
  new Ratio(fromMinorUnits(payAmount, payDecimals)).div(fromMinorUnits(orderAmount, orderDecimals)).toFixed()

const Created = 1
const Started = 2

export const makePaymentOffers = Effect.gen(function* () {
  const db = yield* makeDb
  const terminals = yield* Terminals
  const tariffs = yield* Tariffs
  const rates = yield* Rates
  const currencies = yield* Currencies
  const config = yield* AppConfigService
  const keys = yield* AccountKeys
  const hasXpub = (network: number) => isDerivedNetwork(network) && keys.keyOf(network) !== undefined
  const spreadPct = new BigNumber(config.paymentFxSpreadPct).toFixed()

  const decimalsOf = (currency: string) => currencies.find(currency)?.decimals ?? 0

  /** A decimal text as the JSON number SPEC's TerminalOut carries (display only). */
  const num = (text: string, decimals: number) => Number(new BigNumber(text).decimalPlaces(decimals).toFixed())

  /** The price of one terminal for one order, or null when it cannot be quoted (no rate). */
  const priceOf = (order: OfferOrder, terminal: Terminal, payCurrency: string) =>
    Effect.gen(function* () {
      const orderDecimals = decimalsOf(order.currency)
      const payDecimals = decimalsOf(payCurrency)
      if (order.terminalId !== null && order.terminalId === terminal.id && order.payAmount !== null)
        return { payAmount: order.payAmount, rate: order.rate ?? "1", spreadPct: order.spreadPct ?? "0", locked: true }
      if (order.kind === "TransferOrder")
        return { payAmount: order.orderAmount, rate: "1", spreadPct: "0", locked: false }
      if (order.presetTerminalId === terminal.id && order.presetPayAmount !== null)
        return {
          payAmount: order.presetPayAmount,
          rate: fixedRate(order.presetPayAmount, payDecimals, order.orderAmount, orderDecimals),
          spreadPct: "0",
          locked: false
        }
      if (payCurrency === order.currency)
        return { payAmount: order.orderAmount, rate: "1", spreadPct: "0", locked: false }
      const rate = yield* rates.rate(order.currency, payCurrency)
      if (rate === undefined) return null
      const text = rate.rate.toFixed()
      return {
        payAmount: quotePayAmount(order.orderAmount, orderDecimals, text, spreadPct, payDecimals),
        rate: text,
        spreadPct,
        locked: false
      }
    })

  const offerOf = (
    order: OfferOrder,
    terminal: Terminal,
    rules: ReadonlyArray<Tariff>,
    walletGroup: number,
    now: number
  ): Effect.Effect<OrderOffer> =>
    Effect.gen(function* () {
      const payCurrency = terminal.builtIn ? order.currency : (terminal.currency ?? order.currency)
      const payDecimals = decimalsOf(payCurrency)
      const txClass: TxClass = order.kind === "PaymentOrder" ? "Payment" : "Payout"
      const applying = rules.filter(
        (r) =>
          r.txClass === txClass &&
          r.currency === payCurrency &&
          (r.walletGroup === null || r.walletGroup === walletGroup) &&
          (r.typeTx === null || r.typeTx === order.typeTx)
      )
      const lowest =
        applying.length === 0 || applying.some((r) => r.minAmount === null)
          ? null
          : BigNumber.min(...applying.map((r) => r.minAmount!))
      const highest =
        applying.length === 0 || applying.some((r) => r.maxAmount === null)
          ? null
          : BigNumber.max(...applying.map((r) => r.maxAmount!))
      const price = yield* priceOf(order, terminal, payCurrency)
      const query = {
        txClass,
        currency: payCurrency,
        decimals: payDecimals,
        amount: price?.payAmount ?? 0n,
        walletGroup,
        typeTx: order.typeTx
      }
      // A TransferOrder keeps the Payout fee fixed at its creation (order currency = payCurrency).
      const fee =
        order.kind === "TransferOrder" || price?.locked === true
          ? { fee: order.fee, profitWalletId: order.profitWallet }
          : price === null
            ? { fee: 0n, profitWalletId: SystemWallet.Fees }
            : quoteFee(rules, query)
      const rule =
        price !== null
          ? ruleFor(rules, query)
          : applying.reduce<Tariff | undefined>(
              (best, r) =>
                best === undefined ||
                (r.walletGroup !== null ? 2 : 0) + (r.typeTx !== null ? 1 : 0) >=
                  (best.walletGroup !== null ? 2 : 0) + (best.typeTx !== null ? 1 : 0)
                  ? r
                  : best,
              undefined
            )
      const payMajor = price === null ? null : new BigNumber(fromMinorUnits(price.payAmount, payDecimals))
      const withinBounds =
        payMajor !== null && (lowest === null || payMajor.gte(lowest)) && (highest === null || payMajor.lte(highest))
      const due = now > order.expiresAt.getTime()
      const presetRespected = order.presetTerminalId === null || order.presetTerminalId === terminal.id
      const available =
        !due &&
        (order.stateCode === Created
          ? price !== null &&
            withinBounds &&
            presetRespected &&
            payableOn(order.kind, terminal, hasXpub) &&
            (config.acquirer !== "off" || terminal.typeNetwork !== NetworkType.Card)
          : order.stateCode === Started && order.terminalId === terminal.id)
      const method = methodOf(terminal) ?? "CryptoTransfer"
      const out: TerminalOut = {
        id: String(terminal.id) as TerminalOut["id"],
        displayName: terminal.displayName ?? (terminal.builtIn ? "Internal" : payCurrency),
        iconCode: terminal.iconCode,
        currency: payCurrency,
        typeNetwork: terminal.typeNetwork,
        feeFixed: num(rule?.feeFixed ?? "0", payDecimals),
        feePercent: Number(rule?.feePercent ?? 0),
        minAmount: lowest === null ? null : num(lowest.toFixed(), payDecimals),
        maxAmount: highest === null ? null : num(highest.toFixed(), payDecimals),
        available,
        sameAsOrderCurrency: payCurrency === order.currency,
        requiresAuth: terminal.builtIn && order.kind === "PaymentOrder",
        quote:
          price === null
            ? null
            : {
                payAmount: fromMinorUnits(price.payAmount, payDecimals),
                fee: fromMinorUnits(fee.fee, payDecimals),
                totalToPay: fromMinorUnits(price.payAmount + fee.fee, payDecimals),
                rate: price.rate
              }
      }
      const offer: OfferData = {
        terminalId: terminal.id,
        method,
        rate: price?.rate ?? "0",
        spreadPct: price?.spreadPct ?? "0",
        payCurrency,
        payAmount: price?.payAmount ?? 0n,
        fee: fee.fee,
        profitWallet: fee.profitWalletId,
        available
      }
      return { terminal, out, offer }
    })

  /** The merchant wallet's group, from the order row when it carries it. */
  const groupOf = (order: OfferOrder) =>
    order.merchantGroup !== undefined
      ? Effect.succeed(order.merchantGroup)
      : Effect.map(db(walletById(order.merchantWallet)), (merchant) => merchant?.walletGroup ?? 0)

  /** The terminals offered for the order, internal first, then by priority (SPEC's terminal order). */
  const offeredTerminals = (order: OfferOrder, all: ReadonlyArray<Terminal>) =>
    [...all.filter((t) => t.builtIn), ...all.filter((t) => !t.builtIn)].filter((t) => isOffered(order, t))

  /** Every terminal offered for the order, with its quote. */
  const forOrder = (order: OfferOrder): Effect.Effect<ReadonlyArray<OrderOffer>> =>
    Effect.gen(function* () {
      const all = yield* terminals.all()
      const rules = yield* tariffs.list()
      const walletGroup = yield* groupOf(order)
      const now = Date.now()
      return yield* Effect.forEach(offeredTerminals(order, all), (t) => offerOf(order, t, rules, walletGroup, now))
    })

  /** The terminals as the caller already read them in this request, else read now. */
  const listed = (known: ReadonlyArray<Terminal> | undefined) =>
    known !== undefined ? Effect.succeed(known) : terminals.all()

  /** One terminal's offer for the order, priced only if it is offered (the others are not quoted). */
  const oneOffer = (order: OfferOrder, all: ReadonlyArray<Terminal>, pick: (t: Terminal) => boolean) =>
    Effect.gen(function* () {
      const terminal = offeredTerminals(order, all).find(pick)
      if (terminal === undefined) return undefined
      const rules = yield* tariffs.list()
      return yield* offerOf(order, terminal, rules, yield* groupOf(order), Date.now())
    })

  /**
   * The engine's offer of one terminal (none: the internal one). A terminal that exists but is not
   * offered gets an unavailable offer, so the engine answers in its order (expired, state, locked, 10303);
   * an unknown one is 404 10040. `known`: the terminals already read in this request.
   */
  const offerOn = (order: OfferOrder, terminalId: string | undefined, known?: ReadonlyArray<Terminal>) =>
    Effect.gen(function* () {
      const all = yield* listed(known)
      const found = yield* oneOffer(order, all, (t) =>
        terminalId === undefined ? t.builtIn : String(t.id) === terminalId
      )
      if (found !== undefined) return found.offer
      const terminal = all.find((t) => String(t.id) === terminalId)
      if (terminal === undefined)
        return yield* new TerminalNotFound({ message: `tokenNetworkId: no terminal ${terminalId}` })
      const offer: OfferData = {
        terminalId: terminal.id,
        method: methodOf(terminal) ?? "CryptoTransfer",
        rate: "0",
        spreadPct: "0",
        payCurrency: terminal.currency ?? order.currency,
        payAmount: 0n,
        fee: 0n,
        profitWallet: SystemWallet.Fees,
        available: false
      }
      return offer
    })

  /**
   * get_order_info's `terminal`: the locked terminal, else the preselected one, else null. `known`: the
   * terminals already read in this request.
   */
  const terminalOf = (order: OfferOrder, known?: ReadonlyArray<Terminal>): Effect.Effect<TerminalOut | null> =>
    Effect.gen(function* () {
      const id = order.terminalId ?? (order.stateCode === Created ? order.presetTerminalId : null)
      if (id === null) return null
      const all = yield* listed(known)
      const found = yield* oneOffer(order, all, (t) => t.id === id)
      if (found !== undefined) return found.out
      // Locked on a terminal no longer offered (hidden since): still shown, from the snapshot.
      const terminal = all.find((t) => t.id === id)
      if (terminal === undefined) return null
      const rules = yield* tariffs.list()
      return (yield* offerOf(order, terminal, rules, yield* groupOf(order), Date.now())).out
    })

  /** get_terminals without a code: the generic list of SPEC (Deposit, non-Hidden terminals), no quotes. */
  const generic = (currency: string | undefined): Effect.Effect<ReadonlyArray<TerminalOut>> =>
    Effect.gen(function* () {
      const rows = (yield* terminals.all()).filter(
        (row) => !row.builtIn && !has(row, TerminalFlag.Hidden) && has(row, TerminalFlag.Deposit)
      )
      const rules = yield* tariffs.list()
      return rows.map((row) => {
        const rule = rules.find((r) => r.txClass === "Payment" && r.currency === row.currency && r.walletGroup === null)
        const decimals = decimalsOf(row.currency ?? "")
        return {
          id: String(row.id) as TerminalOut["id"],
          displayName: row.displayName ?? row.currency ?? "",
          iconCode: row.iconCode,
          currency: row.currency ?? "",
          typeNetwork: row.typeNetwork,
          feeFixed: num(rule?.feeFixed ?? "0", decimals),
          feePercent: Number(rule?.feePercent ?? 0),
          minAmount: rule?.minAmount == null ? null : num(rule.minAmount, decimals),
          maxAmount: rule?.maxAmount == null ? null : num(rule.maxAmount, decimals),
          // C19 §1: card terminals are listed but unavailable while ACQUIRER is off.
          available: config.acquirer !== "off" || row.typeNetwork !== NetworkType.Card,
          sameAsOrderCurrency: currency !== undefined && currency === row.currency,
          requiresAuth: false,
          quote: null
        }
      })
    })

  return { forOrder, offerOn, terminalOf, generic, hasXpub }
})

export type PaymentOffers = Effect.Success<typeof makePaymentOffers>
