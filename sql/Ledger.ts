/**
 * The ledger's vocabulary, in one leaf module that engines, repositories and the writer import:
 * buckets, postings, transaction records and transitions, the operation committed as a unit, the
 * system wallets (CONTRACT C6), and the plug-in point through which a feature adds rows of its own
 * tables to a ledger commit (`RowKind`). It imports nothing of the project.
 */
import { Data, type Schema } from "effect"

export const Bucket = { free: 0, lockOut: 1, lockIn: 2, lockOrders: 3 } as const
export type Bucket = (typeof Bucket)[keyof typeof Bucket]

/** System wallets (CONTRACT C6, C15): they take the other side of money entering or leaving users. */
export const SystemWallet = {
  Treasury: -1n,
  Fees: -2n,
  Broker: -3n,
  Unattributed: -4n,
  Federation: -16n
} as const

export interface Posting {
  readonly walletId: bigint
  readonly currency: string
  readonly bucket: Bucket
  readonly delta: bigint
}

export interface TxRecord {
  readonly id: bigint
  readonly typeTx: number
  readonly txState: number
  readonly walletFrom: bigint
  readonly walletTo: bigint
  readonly currency: string
  readonly amount: bigint
  readonly fee: bigint
  readonly tag: string | null
  readonly appId: bigint | null
  readonly externalId: string | null
  readonly requestHash: string | null
  readonly clientNonce?: bigint | null
  readonly profitWallet?: bigint | null
  /** Exchange legs (orders, swaps): the currency received and the net amount received. */
  readonly currencyTo?: string | null
  readonly amountTo?: bigint | null
}

/** A state change of an existing transaction, applied only if it is still in `from`. */
export interface TxTransition {
  readonly id: bigint
  readonly from: number
  readonly to: number
  /** Parties bound by the transition (a code's redeemer or an invoice's payer). */
  readonly walletFrom?: bigint
  readonly walletTo?: bigint
  /** New figures of an exchange transaction as it fills (given, net received, fee). */
  readonly amount?: bigint
  readonly amountTo?: bigint
  readonly fee?: bigint
}

export interface ConfirmationInsert {
  readonly txId: bigint
  readonly walletId: bigint
  readonly channel: "Inline" | "Code" | "Sign"
  readonly codeHash: Uint8Array | null
  readonly attempts: number
  readonly expiresAt: Date
}

export interface EventInsert {
  readonly kind: string
  readonly walletId: bigint
  readonly payload: unknown
}

/** One group of a batch's rows as the SQL side takes it: one PostgreSQL array literal per column. */
export type Columns = Array<string>

/**
 * A feature's own rows in a ledger commit (the plug-in point). A feature declares a kind in its
 * module under sql/rows/ — its name, its place in the batch and how its rows become columns — and
 * creates, in its own migration, the PL/pgSQL function `ledger_rows_<name>(p_first bigint,
 * p_cols text[])` that writes them (its table, its columns, its precondition: a conditional update
 * that finds its row moved on calls `ledger_raise_stale`, which undoes the batch). The writer and
 * `ledger_commit` call every kind the same way; they never change when a feature is added.
 */
export interface RowKind<Row> {
  /** `[a-z_]+`; the SQL function is `ledger_rows_<name>`. */
  readonly name: string
  /** Kinds run in ascending rank after the core rows (inserts before the updates that may follow them). */
  readonly rank: number
  /** The batch's rows of this kind, in commit order, with their part's tick offset, as columns. */
  readonly columns: (rows: ReadonlyArray<{ readonly row: Row; readonly offset: number }>) => Columns
  /** A row as data (bigints as strings, bytes as hex), for an operation that crosses an actor mailbox. */
  readonly schema: Schema.Codec<Row, any>
}

/** Rows of one kind carried by an operation. */
export interface KindRows<Row = any> {
  readonly kind: RowKind<Row>
  readonly rows: ReadonlyArray<Row>
}

export const rowsOf = <Row>(kind: RowKind<Row>, rows: ReadonlyArray<Row>): KindRows<Row> => ({ kind, rows })

/** One operation: exactly one of `tx` (a new transaction) or `transition` (an existing one). */
export interface LedgerOperation {
  readonly tx?: TxRecord
  readonly transition?: TxTransition
  readonly postings: ReadonlyArray<Posting>
  readonly confirmation?: ConfirmationInsert
  readonly dropConfirmation?: boolean
  readonly events?: ReadonlyArray<EventInsert>
  /** A client nonce consumed by this operation (unique per wallet: a reuse fails the operation). */
  readonly nonce?: { readonly walletId: bigint; readonly clientNonce: bigint }
  /** Rows of feature tables written in the same commit (codes, orders, trades, ...). */
  readonly rows?: ReadonlyArray<KindRows>
  /**
   * Further transactions committed atomically with this one (a match settles the taker's and every
   * maker's order transaction together). Each gets its own update tick; nested `extra` is ignored.
   */
  readonly extra?: ReadonlyArray<LedgerOperation>
}

/** A transition found its transaction no longer in the expected state (another operation won). */
export class StateConflict extends Data.TaggedError("StateConflict")<{ readonly txIds: ReadonlyArray<bigint> }> {}

/** The NOTIFY channel on which every commit announces its last tick. */
export const journalChannel = "core_journal"

export const txIdOf = (op: LedgerOperation): bigint => {
  const id = op.tx?.id ?? op.transition?.id
  if (id === undefined) throw new Error("invariant: a ledger operation needs a tx or a transition")
  return id
}
