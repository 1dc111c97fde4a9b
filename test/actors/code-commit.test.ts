/**
 * The code actor's commit paths (actors/code/Behaviour.ts), one table row each: the message, a
 * failure the ledger writer returns on cue for the next N commits, the reply or rejection, how many
 * commits were asked for, and the ledger after. An outcome that takes free money (creating a held
 * code, paying an invoice, binding a type-14 payer) goes through the paying wallet's actor, which
 * retries a CHECK refusal on fresh figures; an outcome the code commits itself (settling or
 * releasing what it holds, a join) is never retried. The code and wallet actors run on effect's
 * TestRunner (one runner, every message serialised), against a real database; after every row the
 * ledger audit must be sound.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { CodeEntityLayer } from "../../actors/code/Behaviour.ts"
import { CodeEntity } from "../../actors/code/Protocol.ts"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { WalletEntity } from "../../actors/wallet/Protocol.ts"
import { CodeTxState, CodeType } from "../../schema/Code.ts"
import { asTxId, asWalletId } from "../../schema/Ids.ts"
import { StateConflict, SystemWallet } from "../../sql/Ledger.ts"
import { type CommitFailure, ConstraintViolated, Duplicate } from "../../src/platform/LedgerWriter.ts"
import { hashCode } from "../../src/platform/SecondFactor.ts"
import { ActorPlatform, auditLedger, LedgerFaults, ledgerOf, newTxId, newWallet } from "../support/Actors.ts"

const USDT = "USDT"
const usdt = (n: number) => BigInt(Math.round(n * 1e6))

const check = () => new ConstraintViolated({ constraint: "user_balance_not_negative" })
const duplicate = () => new Duplicate({ constraint: "unique" })
const conflict = () => new StateConflict({ txIds: [] })

class Clients extends Context.Service<
  Clients,
  {
    readonly code: Effect.Success<typeof CodeEntity.client>
    readonly wallet: Effect.Success<typeof WalletEntity.client>
  }
>()("test/CodeActorClients") {}

const TestLayer = Layer.effect(Clients, Effect.all({ code: CodeEntity.client, wallet: WalletEntity.client })).pipe(
  Layer.provideMerge(Layer.mergeAll(WalletEntityLayer, CodeEntityLayer)),
  Layer.provideMerge(TestRunner.layer),
  Layer.provideMerge(ActorPlatform)
)

/** One row's parties: the code's creator and a counterparty (each funded with 100 USDT), the code's transaction. */
interface Parties {
  readonly creator: bigint
  readonly other: bigint
  readonly txId: bigint
  readonly code: ReturnType<Clients["Service"]["code"]>
}

/** A code of 10 USDT with a fee of 1 (the recipient gets 9). */
const amount = 10,
  fee = 1
const create =
  (typeTx: CodeType, expiresAt: Date | null = null) =>
  (p: Parties) =>
    p.code.CreateCode({
      creator: p.creator,
      typeTx,
      currency: USDT,
      amount: usdt(amount),
      fee: usdt(fee),
      profitWallet: SystemWallet.Fees,
      tag: null,
      codeHash: hashCode(`code-${p.txId}`),
      expiresAt,
      partnerInfo: null
    })
let nonce = 1n
const applyBy = (who: "creator" | "other", withAmount: boolean) => (p: Parties) =>
  p.code.ApplyCode({ by: asWalletId(p[who]), amount: withAmount ? usdt(amount) : null, clientNonce: nonce++ })
const apply = applyBy("other", false)
const pay = applyBy("other", true)
const cancelBy = (who: "creator" | "other") => (p: Parties) => p.code.CancelCode({ by: asWalletId(p[who]) })

type Figures = readonly [free: number, lockOut: number]
interface Row {
  readonly name: string
  /** The code's type; it is created before the cue unless the row's message is its creation. */
  readonly typeTx: CodeType
  /** Created with a time limit already past (CODE_TTL_SECONDS elapsed). */
  readonly expired?: boolean
  readonly send: "create" | ((p: Parties) => Effect.Effect<unknown, unknown>)
  /** Steps before the cue after creation (a join, a first payment). */
  readonly before?: (p: Parties) => Effect.Effect<unknown, unknown>
  readonly inject?: readonly [failure: () => CommitFailure, times: number]
  /** Success with this reply (undefined: any), or the rejection's tag and message. */
  readonly reply: { readonly ok: unknown } | readonly [tag: string, message: RegExp]
  readonly attempts: number
  /** The creator's and the counterparty's USDT (free, lock_out), and the code's transaction state (null: none). */
  readonly ledger: { readonly creator: Figures; readonly other: Figures; readonly txState: number | null }
}

const { InternalTx, InternalTxConfirm, InvoiceTx, InvoiceTxConfirm } = CodeType
const { Created, Joined, Finished, Canceled } = CodeTxState
const untouched: Figures = [100, 0]
const held: Figures = [90, 10]
const changed = /^code: the code changed state meanwhile/
const nonceUsed = /^client_nonce: already used by this wallet/
const settled = (confirmationStatusCode: string, txState: number) => ({ ok: { confirmationStatusCode, txState } })

// One line a row.
// prettier-ignore
const rows: ReadonlyArray<Row> = [
  // Creating a held code (11, 12): the creator's wallet actor takes the amount (free → lock_out).
  { name: "create 11: the creator's wallet actor holds the amount", typeTx: InternalTx, send: "create", reply: { ok: undefined }, attempts: 1, ledger: { creator: held, other: untouched, txState: Created } },
  { name: "create 11: a CHECK refusal is retried by the wallet actor", typeTx: InternalTx, send: "create", inject: [check, 1], reply: { ok: undefined }, attempts: 2, ledger: { creator: held, other: untouched, txState: Created } },
  { name: "create 12: four CHECK refusals → BalanceNotEnough, no code", typeTx: InternalTxConfirm, send: "create", inject: [check, 4], reply: ["BalanceNotEnough", /^amount: the balance changed; retry/], attempts: 4, ledger: { creator: untouched, other: untouched, txState: null } },
  { name: "create 11: a duplicate → NonceExists, no code", typeTx: InternalTx, send: "create", inject: [duplicate, 1], reply: ["NonceExists", nonceUsed], attempts: 1, ledger: { creator: untouched, other: untouched, txState: null } },
  // Type 11 redeemed: the code settles what it holds itself, never retried.
  { name: "apply 11: settles to the redeemer", typeTx: InternalTx, send: apply, reply: settled("Confirmed", Finished), attempts: 1, ledger: { creator: [90, 0], other: [109, 0], txState: Finished } },
  { name: "apply 11: a duplicate (the redeemer's nonce) → NonceExists, still held", typeTx: InternalTx, send: apply, inject: [duplicate, 1], reply: ["NonceExists", nonceUsed], attempts: 1, ledger: { creator: held, other: untouched, txState: Created } },
  { name: "apply 11: a state conflict (redeemed elsewhere) → TransactionNotPending, still held", typeTx: InternalTx, send: apply, inject: [conflict, 1], reply: ["TransactionNotPending", changed], attempts: 1, ledger: { creator: held, other: untouched, txState: Created } },
  { name: "apply 11: a CHECK refusal is not retried → TransactionNotPending, still held", typeTx: InternalTx, send: apply, inject: [check, 1], reply: ["TransactionNotPending", changed], attempts: 1, ledger: { creator: held, other: untouched, txState: Created } },
  { name: "cancel 11 by the creator: released", typeTx: InternalTx, send: cancelBy("creator"), reply: { ok: { txState: Canceled } }, attempts: 1, ledger: { creator: untouched, other: untouched, txState: Canceled } },
  { name: "cancel 11: a state conflict → TransactionNotPending, still held", typeTx: InternalTx, send: cancelBy("creator"), inject: [conflict, 1], reply: ["TransactionNotPending", changed], attempts: 1, ledger: { creator: held, other: untouched, txState: Created } },
  // An expired code can no longer be applied; its creator may still cancel it and take the money back.
  { name: "apply 11 after its time limit → TransactionNotPending, no commit, still held", typeTx: InternalTx, expired: true, send: apply, reply: ["TransactionNotPending", /^code: expired; only its creator may cancel it/], attempts: 0, ledger: { creator: held, other: untouched, txState: Created } },
  { name: "cancel 11 after its time limit by the creator: released", typeTx: InternalTx, expired: true, send: cancelBy("creator"), reply: { ok: { txState: Canceled } }, attempts: 1, ledger: { creator: untouched, other: untouched, txState: Canceled } },
  { name: "pay 13 after its time limit → TransactionNotPending, nothing paid", typeTx: InvoiceTx, expired: true, send: pay, reply: ["TransactionNotPending", /^code: expired/], attempts: 0, ledger: { creator: untouched, other: untouched, txState: Created } },
  // Type 12: the join moves nothing (the code commits it); the sender's apply settles.
  { name: "apply 12 by the recipient: joins", typeTx: InternalTxConfirm, send: apply, reply: settled("NeedCodeConfirm", Joined), attempts: 1, ledger: { creator: held, other: untouched, txState: Joined } },
  { name: "apply 12: a state conflict on the join → TransactionNotPending, unbound", typeTx: InternalTxConfirm, send: apply, inject: [conflict, 1], reply: ["TransactionNotPending", changed], attempts: 1, ledger: { creator: held, other: untouched, txState: Created } },
  { name: "apply 12 by the sender after the join: a state conflict → TransactionNotPending, still joined", typeTx: InternalTxConfirm, before: apply, send: applyBy("creator", false), inject: [conflict, 1], reply: ["TransactionNotPending", changed], attempts: 1, ledger: { creator: held, other: untouched, txState: Joined } },
  // Type 13: paying takes the payer's free money, through the payer's wallet actor.
  { name: "pay 13: the payer's wallet actor pays the creator", typeTx: InvoiceTx, send: pay, reply: settled("Confirmed", Finished), attempts: 1, ledger: { creator: [109, 0], other: [90, 0], txState: Finished } },
  { name: "pay 13: a CHECK refusal is retried by the payer's wallet actor", typeTx: InvoiceTx, send: pay, inject: [check, 1], reply: settled("Confirmed", Finished), attempts: 2, ledger: { creator: [109, 0], other: [90, 0], txState: Finished } },
  { name: "pay 13: four CHECK refusals → BalanceNotEnough", typeTx: InvoiceTx, send: pay, inject: [check, 4], reply: ["BalanceNotEnough", /^amount: the balance changed; retry/], attempts: 4, ledger: { creator: untouched, other: untouched, txState: Created } },
  { name: "pay 13: a state conflict (paid elsewhere) → TransactionNotPending", typeTx: InvoiceTx, send: pay, inject: [conflict, 1], reply: ["TransactionNotPending", changed], attempts: 1, ledger: { creator: untouched, other: untouched, txState: Created } },
  { name: "pay 13: a duplicate (the payer's nonce) → NonceExists", typeTx: InvoiceTx, send: pay, inject: [duplicate, 1], reply: ["NonceExists", nonceUsed], attempts: 1, ledger: { creator: untouched, other: untouched, txState: Created } },
  // Type 14: the first payment binds and locks the payer's money (wallet actor), the second settles (the code).
  { name: "pay 14 first: binds and locks the payer's amount", typeTx: InvoiceTxConfirm, send: pay, reply: settled("NeedCodeConfirm", Joined), attempts: 1, ledger: { creator: untouched, other: held, txState: Joined } },
  { name: "pay 14 first: a CHECK refusal is retried by the payer's wallet actor", typeTx: InvoiceTxConfirm, send: pay, inject: [check, 3], reply: settled("NeedCodeConfirm", Joined), attempts: 4, ledger: { creator: untouched, other: held, txState: Joined } },
  { name: "pay 14 second: a CHECK refusal is not retried → TransactionNotPending, still locked", typeTx: InvoiceTxConfirm, before: pay, send: pay, inject: [check, 1], reply: ["TransactionNotPending", changed], attempts: 1, ledger: { creator: untouched, other: held, txState: Joined } },
  { name: "pay 14 second: settles from the payer's lock", typeTx: InvoiceTxConfirm, before: pay, send: pay, reply: settled("Confirmed", Finished), attempts: 1, ledger: { creator: [109, 0], other: [90, 0], txState: Finished } }
]

/** A wallet funded with 100 USDT through its own actor. */
const funded = Effect.gen(function* () {
  const clients = yield* Clients
  const id = yield* newWallet()
  const txId = newTxId()
  yield* clients.wallet(String(id)).PostTreasury({
    txId: asTxId(txId),
    externalId: `fund-${txId}`,
    requestHash: "h",
    currency: USDT,
    amount: usdt(100),
    tag: null,
    direction: "credit"
  })
  return id
})

layer(TestLayer, { excludeTestServices: true, timeout: 120_000 })("code actor: commit paths", (it) => {
  it.effect.each(rows)("$name", (row) =>
    Effect.gen(function* () {
      const faults = yield* LedgerFaults
      const clients = yield* Clients
      const txId = newTxId()
      const p: Parties = { creator: yield* funded, other: yield* funded, txId, code: clients.code(String(txId)) }
      const expiresAt = row.expired === true ? new Date(Date.now() - 1_000) : null
      if (row.send !== "create") yield* create(row.typeTx, expiresAt)(p)
      if (row.before !== undefined) yield* row.before(p)
      yield* faults.reset
      if (row.inject !== undefined) yield* faults.failNext(row.inject[0](), row.inject[1])
      const exit = yield* Effect.exit(row.send === "create" ? create(row.typeTx)(p) : row.send(p))
      const attempts = faults.attempts()
      yield* faults.reset
      if ("ok" in row.reply) {
        assert.isTrue(Exit.isSuccess(exit), `expected success, got ${String(exit)}`)
        if (row.reply.ok !== undefined && Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value, row.reply.ok)
      } else {
        const [tag, message] = row.reply
        const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        assert.isDefined(error, `expected a rejection, got ${String(exit)}`)
        const failure = (error as any).error as { _tag: string; message: string }
        assert.strictEqual(failure._tag, tag, failure.message)
        assert.match(failure.message, message)
      }
      assert.strictEqual(attempts, row.attempts, "commits asked for")
      const creator = yield* ledgerOf(p.creator, USDT, txId)
      const other = yield* ledgerOf(p.other, USDT)
      assert.deepStrictEqual(
        { creator: [creator.free, creator.lockOut], other: [other.free, other.lockOut], txState: creator.txState },
        {
          creator: row.ledger.creator.map(usdt),
          other: row.ledger.other.map(usdt),
          txState: row.ledger.txState
        }
      )
      yield* auditLedger(row.name)
    })
  )
})
