/**
 * Settlement of one match (pure): from the engine's fills to one atomic ledger operation. Every
 * participant's order is one transaction (typeTx 16/17, CONTRACT C14); a match posts to the taker's
 * and to every filled maker's transaction:
 *
 *   participant lock_orders(from) −given      Broker free(from) +given
 *   Broker free(to) −gross                     participant free(to) +(gross − fee)     profit free(to) +fee
 *
 * and, when an order ends (completed or cancelled), what is still locked for it returns to free.
 * Makers the match took off the book without a fill of theirs (self-trade prevention, dust — see
 * Ratio.ts) end the same way: their lock returns to free.
 *
 * Fees (CONTRACT C14): feePercent on every fill, feeFixed once per order — with the first match that
 * fills it (an order with nothing received and nothing given yet) — and never more than the order
 * receives in that match (so never more than it receives in total).
 * Per currency every transaction sums to zero; the Broker's legs cancel across the match (the taker
 * gives exactly what its makers receive), so the Broker holds nothing after a trade.
 */
import { Bucket, type LedgerOperation, type Posting, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { type OrderUpdate, OrderUpdates, type TradeInsert, Trades } from "../../sql/rows/ExchangeRows.ts"
import { TxState } from "../../schema/Transfer.ts"
import { baseMinorOf, type Pair, priceOfRatio, quoteMinorOfUnits, ticksOfRatio } from "./Pair.ts"

export const OrderState = { Active: 1, Completed: 198, Canceled: 199, Finished: 200, Failed: 255 } as const
export const OrderType = { Limit: 1, LimitOnly: 2, Market: 3 } as const
export const SIDE_BUY = 0
export const SIDE_SELL = 1

/** What a room knows of an order (resting or being placed). Figures are minor units / lots. */
export interface BookOrder {
  readonly id: bigint
  readonly walletId: bigint
  readonly walletGroup: number
  /** 0 buys base with quote, 1 sells base for quote. */
  readonly side: number
  readonly fromCurrency: string
  readonly toCurrency: string
  readonly typeTx: number
  seq: number
  remainingLots: bigint
  locked: bigint
  given: bigint
  received: bigint
  fee: bigint
  state: number
  /** What the orders row holds now (the last committed figures), for the conditional update. */
  persisted: { remainingLots: bigint; seq: bigint | null }
}

export interface Fill {
  readonly maker: BookOrder
  /** The maker's exact ratio, quote units per lot. */
  readonly num: bigint
  readonly den: bigint
  readonly lots: bigint
  /** Quote units the fill moves (Ratio.ts's rounding rule). */
  readonly quoteUnits: bigint
}

/** A maker the match took off the book without (further) fills: self-trade prevention or dust. */
export interface Ended {
  readonly maker: BookOrder
  readonly reason: "selfTrade" | "dust"
}

/** The fee on `grossMinor` received; `withFixed`: the order's first fill, which also pays feeFixed. */
export type FeeOf = (
  order: BookOrder,
  grossMinor: bigint,
  withFixed: boolean
) => { readonly fee: bigint; readonly profitWalletId: bigint }

/** How the taker left the match. */
export type TakerOutcome = "rested" | "filled" | "remainderCancelled"

interface Leg {
  given: bigint
  gross: bigint
}

const push = (
  postings: Array<Posting>,
  walletId: bigint,
  currency: string,
  bucket: Posting["bucket"],
  delta: bigint
) => {
  if (delta !== 0n) postings.push({ walletId, currency, bucket, delta })
}

/** Postings and new figures of one participant; mutates `order` to its figures after the match. */
const settleParticipant = (order: BookOrder, leg: Leg, ends: boolean, feeOf: FeeOf) => {
  const postings: Array<Posting> = []
  // Its first fill: every fill gives something, and `given` is updated below.
  const first = order.given === 0n
  const { fee, profitWalletId } =
    leg.gross > 0n ? feeOf(order, leg.gross, first) : { fee: 0n, profitWalletId: SystemWallet.Fees }
  const charged = fee > leg.gross ? leg.gross : fee
  push(postings, order.walletId, order.fromCurrency, Bucket.lockOrders, -leg.given)
  push(postings, SystemWallet.Broker, order.fromCurrency, Bucket.free, leg.given)
  push(postings, SystemWallet.Broker, order.toCurrency, Bucket.free, -leg.gross)
  push(postings, order.walletId, order.toCurrency, Bucket.free, leg.gross - charged)
  push(postings, profitWalletId, order.toCurrency, Bucket.free, charged)
  order.locked -= leg.given
  order.given += leg.given
  order.received += leg.gross - charged
  order.fee += charged
  if (order.locked < 0n) throw new Error(`invariant: order ${order.id} spent more than it locked`)
  if (ends && order.locked > 0n) {
    push(postings, order.walletId, order.fromCurrency, Bucket.lockOrders, -order.locked)
    push(postings, order.walletId, order.fromCurrency, Bucket.free, order.locked)
    order.locked = 0n
  }
  return postings
}

export const orderUpdateOf = (order: BookOrder, seq: bigint | null): OrderUpdate => ({
  id: order.id,
  remainingLots: order.remainingLots,
  locked: order.locked,
  given: order.given,
  received: order.received,
  fee: order.fee,
  state: order.state,
  seq,
  prevRemainingLots: order.persisted.remainingLots,
  prevSeq: order.persisted.seq
})

/** After its commit: the row now holds the order's figures. */
export const markPersisted = (order: BookOrder): void => {
  order.persisted = { remainingLots: order.remainingLots, seq: BigInt(order.seq) }
}

/** The transaction state that goes with an order state. */
export const txStateOf = (order: BookOrder): number =>
  order.state === OrderState.Active ? TxState.Created : order.given > 0n ? TxState.Finished : TxState.Canceled

const transitionOf = (order: BookOrder) => ({
  id: order.id,
  from: TxState.Created,
  to: txStateOf(order),
  amount: order.given,
  amountTo: order.received,
  fee: order.fee
})

/**
 * The operation for one processed taker: its fills against makers, then its outcome.
 * `taker.remainingLots` must already be what is left after the fills (0 unless it rested).
 */
export const settleMatch = (input: {
  readonly pair: Pair
  readonly roomKey: bigint
  readonly taker: BookOrder
  readonly fills: ReadonlyArray<Fill>
  readonly ended?: ReadonlyArray<Ended>
  readonly outcome: TakerOutcome
  readonly feeOf: FeeOf
  readonly nextTradeId: () => bigint
}): LedgerOperation => {
  const { pair, taker, fills, feeOf } = input
  const takerLeg: Leg = { given: 0n, gross: 0n }
  const makerLegs = new Map<BookOrder, Leg>()
  const trades: Array<TradeInsert> = []
  for (const fill of fills) {
    const base = baseMinorOf(pair, fill.lots)
    const quote = quoteMinorOfUnits(pair, fill.quoteUnits)
    let leg = makerLegs.get(fill.maker)
    if (leg === undefined) makerLegs.set(fill.maker, (leg = { given: 0n, gross: 0n }))
    if (taker.side === SIDE_SELL) {
      ;((takerLeg.given += base), (takerLeg.gross += quote))
      ;((leg.given += quote), (leg.gross += base))
    } else {
      ;((takerLeg.given += quote), (takerLeg.gross += base))
      ;((leg.given += base), (leg.gross += quote))
    }
    fill.maker.remainingLots -= fill.lots
    trades.push({
      id: input.nextTradeId(),
      roomKey: input.roomKey,
      base: pair.base,
      quote: pair.quote,
      priceTicks: ticksOfRatio(pair, fill.num, fill.den, false),
      price: priceOfRatio(pair, fill.num, fill.den, false, 30),
      priceNum: fill.num,
      priceDen: fill.den,
      amount: base,
      total: quote,
      takerOrder: taker.id,
      makerOrder: fill.maker.id,
      takerSide: taker.side
    })
  }
  taker.state =
    input.outcome === "rested"
      ? OrderState.Active
      : input.outcome === "filled"
        ? OrderState.Completed
        : OrderState.Canceled
  const takerPostings = settleParticipant(taker, takerLeg, taker.state !== OrderState.Active, feeOf)
  const extra: Array<LedgerOperation> = []
  const updates: Array<OrderUpdate> = [orderUpdateOf(taker, BigInt(taker.seq))]
  const endedReason = new Map<BookOrder, Ended["reason"]>()
  for (const { maker, reason } of input.ended ?? []) {
    endedReason.set(maker, reason)
    if (!makerLegs.has(maker)) makerLegs.set(maker, { given: 0n, gross: 0n })
  }
  for (const [maker, leg] of makerLegs) {
    const reason = endedReason.get(maker)
    if (reason !== undefined) {
      // Self-trade: cancelled as its owner's cancel would. Dust: done (Completed once it has traded).
      maker.remainingLots = 0n
      maker.state = reason === "dust" && maker.given + leg.given > 0n ? OrderState.Completed : OrderState.Canceled
    } else if (maker.remainingLots === 0n) maker.state = OrderState.Completed
    const postings = settleParticipant(maker, leg, maker.state !== OrderState.Active, feeOf)
    extra.push({ transition: transitionOf(maker), postings })
    updates.push(orderUpdateOf(maker, null))
  }
  return {
    transition: transitionOf(taker),
    postings: takerPostings,
    rows: [rowsOf(OrderUpdates, updates), rowsOf(Trades, trades)],
    extra
  }
}

/** Cancelling a resting order (owner, room closed, post-only refusal): its lock returns to free. */
export const cancelOrder = (order: BookOrder, seq: bigint | null): LedgerOperation => {
  order.state = OrderState.Canceled
  const postings = settleParticipant(order, { given: 0n, gross: 0n }, true, () => ({
    fee: 0n,
    profitWalletId: SystemWallet.Fees
  }))
  return { transition: transitionOf(order), postings, rows: [rowsOf(OrderUpdates, [orderUpdateOf(order, seq)])] }
}
