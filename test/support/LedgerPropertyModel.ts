/**
 * The model half of the ledger property test (ledger-property-one-process,
 * ledger-property-two-processes): the seed and the two currencies, the naive reference model
 * (balances, pending transfers, used nonces, tariffs, recorded charges), the operations of the
 * stream, one run's state, and the reading of each answer against the model (interpret).
 */
import { assert } from "@effect/vitest"
import { fromMinorUnits as toDecimal, minorToNumber } from "../../schema/Money.ts"
import { confirmationAttemptsMax as confirmationAttempts } from "../../src/platform/SecondFactor.ts"
import { type Reply, type TestClient } from "./Client.ts"
import { seeded } from "../unit/Random.ts"

export const seed = Number(process.env.LEDGER_SEED ?? 20_260_914)
export const currencies = { USDT: 6, EUR: 2 } as const
export type Currency = keyof typeof currencies
export const currencyCodes = Object.keys(currencies) as Array<Currency>
export const walletCount = 10

// Money in the model is bigint minor units; the wire carries decimal strings (schema/Money.ts).
export const asNumber = (minor: bigint, currency: Currency): number => minorToNumber(minor, currencies[currency])
export const toMinor = (value: number, currency: Currency): bigint => {
  const decimals = currencies[currency]
  const [whole, fraction = ""] = String(value).split(".")
  return BigInt(whole + fraction.padEnd(decimals, "0").slice(0, decimals))
}

export interface Tariff {
  readonly fixedMinor: bigint
  /** feePercent × 100, so the percent itself has two decimals. */
  readonly percentHundredths: bigint
}
export type TariffClass = "InnerTransfer" | "SelfTransfer"

export interface Pending {
  readonly txId: string
  readonly sender: number
  readonly recipient: number
  readonly currency: Currency
  readonly amount: bigint
  readonly fee: bigint
  readonly code: string
  readonly body: Record<string, string>
  attemptsLeft: number
}

export interface ChargeRecord {
  readonly body: Record<string, string>
  readonly txId: string | null
  readonly charged: number
  readonly outstanding: number
}

export type Op =
  | { readonly kind: "credit" | "debit"; readonly wallet: number; readonly currency: Currency; readonly amount: bigint }
  | {
      readonly kind: "begin"
      readonly sender: number
      readonly recipient: number
      readonly currency: Currency
      readonly amount: bigint
      readonly nonce: string | null
      readonly nonceReused: boolean
    }
  | { readonly kind: "confirm" | "cancel" | "wrongCode"; readonly pending: Pending; readonly raced: boolean }
  | {
      readonly kind: "charge"
      readonly wallet: number
      readonly currency: Currency
      readonly amount: bigint
      readonly externalId: string
    }
  | { readonly kind: "chargeReplay" | "chargeConflict"; readonly record: ChargeRecord }

/** A balance change the model applies once the service has answered. */
export interface Delta {
  readonly wallet: number
  readonly currency: Currency
  readonly free: bigint
  readonly lockOut: bigint
}

/** The naive reference: balances, pending transfers, used nonces, tariffs, recorded charges. */
export const makeModel = (
  wallets: ReadonlyArray<{ readonly id: string; readonly sid: string; readonly clientId: string }>
) => {
  const balances = wallets.map(() => new Map(currencyCodes.map((c) => [c, { free: 0n, lockOut: 0n }])))
  const pending = new Map<string, Pending>()
  const nonces = wallets.map(() => [] as Array<string>)
  const charges: Array<ChargeRecord> = []
  let tariffs = new Map<string, Tariff>()
  const tariffClass = (sender: number, recipient: number): TariffClass =>
    wallets[sender].clientId === wallets[recipient].clientId ? "SelfTransfer" : "InnerTransfer"
  const feeOf = (tariffClassName: TariffClass, currency: Currency, amount: bigint): bigint => {
    const tariff = tariffs.get(`${tariffClassName}:${currency}`)
    if (tariff === undefined) return 0n
    return tariff.fixedMinor + (amount * tariff.percentHundredths + 9_999n) / 10_000n
  }
  const apply = (delta: Delta) => {
    const bucket = balances[delta.wallet].get(delta.currency)!
    bucket.free += delta.free
    bucket.lockOut += delta.lockOut
  }
  return {
    balances,
    pending,
    nonces,
    charges,
    tariffClass,
    feeOf,
    apply,
    setTariffs: (next: Map<string, Tariff>) => {
      tariffs = next
    },
    free: (wallet: number, currency: Currency) => balances[wallet].get(currency)!.free
  }
}

/** Everything one run needs: the wallets, one client per process, the model and the random stream. */
export const makeRun = async (client: TestClient, clients: ReadonlyArray<TestClient>, runSeed: number) => {
  const random = seeded(runSeed)
  const base = 970_000 + (runSeed % 1000) * 100
  // Wallets 8 and 9 belong to the owners of wallets 0 and 1: transfers between them are own-wallet transfers.
  const clientIds = Array.from({ length: walletCount }, (_, i) => String(i < 8 ? base + i : base + i - 8))
  const wallets = []
  for (const clientId of clientIds) {
    wallets.push({ ...(await client.walletWithSession(clientId)), clientId })
  }
  const model = makeModel(wallets)
  let counter = 0
  const nextId = (label: string) => `${label}-${runSeed}-${counter++}`
  const pick = <A>(items: ReadonlyArray<A>): A => items[random.int(0, items.length - 1)]
  const on = () => pick(clients)
  /** Which kinds of answer the run produced, so a test can insist the stream reached each path. */
  const seen = new Set<string>()
  return { random, wallets, model, nextId, pick, on, seen }
}
export type Run = Awaited<ReturnType<typeof makeRun>>

export const chargeBody = (run: Run, op: Extract<Op, { kind: "charge" }>): Record<string, string> => ({
  externalId: op.externalId,
  walletId: run.wallets[op.wallet].id,
  currency: op.currency,
  amount: toDecimal(op.amount, currencies[op.currency])
})

export interface Outcome {
  readonly deltas: ReadonlyArray<Delta>
  /** A balance-dependent answer to check against what the concurrent batch allows. */
  readonly check?: {
    readonly wallet: number
    readonly currency: Currency
    readonly verify: (lower: bigint, upper: bigint) => void
  }
  readonly after?: () => void
}

export const reserve = (p: { sender: number; currency: Currency }, total: bigint): Delta => ({
  wallet: p.sender,
  currency: p.currency,
  free: -total,
  lockOut: total
})
export const release = (p: Pending): Delta => ({
  wallet: p.sender,
  currency: p.currency,
  free: p.amount + p.fee,
  lockOut: -(p.amount + p.fee)
})

/** Reads one answer: asserts what can be asserted alone, and says what it does to the model. */
export const interpret = (run: Run, op: Op, reply: Reply, where: string): Outcome => {
  const { model } = run
  const code = reply.body?.error?.code ?? null
  switch (op.kind) {
    case "credit":
    case "debit": {
      assert.strictEqual(reply.status, 200, where)
      const item = reply.body.result[0]
      if (op.kind === "credit") {
        assert.isNull(item.error, where)
        return { deltas: [{ wallet: op.wallet, currency: op.currency, free: op.amount, lockOut: 0n }] }
      }
      if (item.error !== null) {
        assert.strictEqual(item.error.code, 10002, where)
        return {
          deltas: [],
          check: {
            wallet: op.wallet,
            currency: op.currency,
            verify: (lower) =>
              assert.isTrue(lower < op.amount, `${where}: refused a debit of ${op.amount} with at least ${lower} free`)
          }
        }
      }
      return {
        deltas: [{ wallet: op.wallet, currency: op.currency, free: -op.amount, lockOut: 0n }],
        check: {
          wallet: op.wallet,
          currency: op.currency,
          verify: (_, upper) =>
            assert.isTrue(upper >= op.amount, `${where}: debited ${op.amount} with at most ${upper} free`)
        }
      }
    }
    case "begin": {
      const fee = model.feeOf(model.tariffClass(op.sender, op.recipient), op.currency, op.amount)
      const total = op.amount + fee
      if (reply.status !== 200) {
        if (op.nonceReused && code === 10130) return { deltas: [] }
        assert.strictEqual(code, 10002, where)
        return {
          deltas: [],
          check: {
            wallet: op.sender,
            currency: op.currency,
            verify: (lower) => assert.isTrue(lower < total, `${where}: refused ${total} with at least ${lower} free`)
          }
        }
      }
      assert.isFalse(op.nonceReused, `${where}: a reused clientNonce was accepted`)
      const result = reply.body.result
      assert.strictEqual(toMinor(result.fee, op.currency), fee, `${where}: fee`)
      assert.strictEqual(result.confirmationStatusCode, "NeedCodeConfirm", where)
      assert.match(result.confirmationCode, /^[0-9]{6}$/, where)
      const pending: Pending = {
        txId: result.txId,
        sender: op.sender,
        recipient: op.recipient,
        currency: op.currency,
        amount: op.amount,
        fee,
        code: result.confirmationCode,
        attemptsLeft: confirmationAttempts,
        body: {
          recipient: run.wallets[op.recipient].id,
          currency: op.currency,
          amount: toDecimal(op.amount, currencies[op.currency])
        }
      }
      return {
        deltas: [reserve(op, total)],
        check: {
          wallet: op.sender,
          currency: op.currency,
          verify: (_, upper) => assert.isTrue(upper >= total, `${where}: reserved ${total} with at most ${upper} free`)
        },
        after: () => {
          model.pending.set(pending.txId, pending)
          if (op.nonce !== null) model.nonces[op.sender].push(op.nonce)
        }
      }
    }
    case "confirm": {
      const p = op.pending
      if (op.raced && reply.status !== 200) {
        assert.strictEqual(code, 10082, where)
        return { deltas: [] }
      }
      assert.strictEqual(reply.status, 200, where)
      assert.strictEqual(reply.body.result.confirmationStatusCode, "Confirmed", where)
      assert.strictEqual(toMinor(reply.body.result.fee, p.currency), p.fee, `${where}: fee at step two`)
      return {
        deltas: [
          { wallet: p.sender, currency: p.currency, free: 0n, lockOut: -(p.amount + p.fee) },
          { wallet: p.recipient, currency: p.currency, free: p.amount, lockOut: 0n }
        ],
        after: () => model.pending.delete(p.txId)
      }
    }
    case "cancel": {
      const p = op.pending
      if (op.raced && reply.status !== 200) {
        assert.strictEqual(code, 10082, where)
        return { deltas: [] }
      }
      assert.strictEqual(reply.status, 200, where)
      return { deltas: [release(p)], after: () => model.pending.delete(p.txId) }
    }
    case "wrongCode": {
      const p = op.pending
      if (p.attemptsLeft > 1) {
        assert.strictEqual(code, 10080, where)
        return {
          deltas: [],
          after: () => {
            p.attemptsLeft--
          }
        }
      }
      // The last attempt used up: the reservation is released.
      assert.strictEqual(code, 10081, where)
      return { deltas: [release(p)], after: () => model.pending.delete(p.txId) }
    }
    case "charge": {
      assert.strictEqual(reply.status, 200, where)
      const result = reply.body.result
      assert.isFalse(result.replayed, where)
      const charged = toMinor(result.charged, op.currency)
      assert.strictEqual(
        charged + toMinor(result.outstanding, op.currency),
        op.amount,
        `${where}: charged + outstanding`
      )
      return {
        deltas: charged === 0n ? [] : [{ wallet: op.wallet, currency: op.currency, free: -charged, lockOut: 0n }],
        check: {
          wallet: op.wallet,
          currency: op.currency,
          verify: (lower, upper) => {
            const least = lower < 0n ? 0n : lower < op.amount ? lower : op.amount
            const most = upper < op.amount ? upper : op.amount
            assert.isTrue(
              charged >= least && charged <= most,
              `${where}: charged ${charged} of ${op.amount}; the free balance was between ${lower} and ${upper}`
            )
          }
        },
        after: () => {
          model.charges.push({
            body: chargeBody(run, op),
            txId: result.txId,
            charged: result.charged,
            outstanding: result.outstanding
          })
        }
      }
    }
    case "chargeReplay": {
      assert.strictEqual(reply.status, 200, `${where}: ${JSON.stringify(reply.body)}`)
      const result = reply.body.result
      assert.isTrue(result.replayed, where)
      assert.strictEqual(result.txId, op.record.txId, where)
      assert.strictEqual(result.charged, op.record.charged, where)
      assert.strictEqual(result.outstanding, op.record.outstanding, where)
      return { deltas: [] }
    }
    case "chargeConflict":
      assert.strictEqual(code, 10060, where)
      return { deltas: [] }
  }
}
