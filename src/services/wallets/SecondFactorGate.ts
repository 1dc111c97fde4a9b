/**
 * The second factor of actions that reserve nothing (CONTRACT C19 §4): while the wallet has
 * Require2FA, set_security off, create_tx_code 11/12, apply_code paying an invoice and pay_internal
 * take internal_transfer's two steps (C12) — the same dispatch (src/http/general/TwoStep.ts), the same
 * channels and codes (platform/SecondFactor.ts), the same step-two answers (10080, 10081, 10082) —
 * through this one gate, which every such handler wraps around its action.
 *
 * Step one changes nothing but a pending step (sql/SecondFactorRepo.ts): which wallet asked for which
 * action with which parameters (their hash), the code's hash or NeedSign, CONFIRMATION_TTL_SECONDS.
 * The code goes out as a `ConfirmationCode` event whose txId is the answered `confirmationTimetick`.
 * Step two checks the proof, takes the step (one use, in one conditional statement) and only then
 * runs the action; parameters other than step one's are 10060. Without Require2FA the action runs
 * at once, as before.
 */
import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import {
  ConfirmationExpired,
  ConfirmationFailed,
  ExternalIdConflict,
  InvalidRequest,
  TransactionNotPending
} from "../../../schema/Errors.ts"
import { asTxId } from "../../../schema/Ids.ts"
import type { KeyType } from "../../../schema/Security.ts"
import type { SecondFactorNeeded } from "../../../schema/Transfer.ts"
import { WalletFlag } from "../../../schema/Wallet.ts"
import {
  findSecondFactorStep,
  insertSecondFactorStep,
  spendSecondFactorAttempt,
  takeSecondFactorStep
} from "../../../sql/SecondFactorRepo.ts"
import { signingKeysOf } from "../../../sql/TransferRepo.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { codeMatches, newConfirmation, signatureMatches } from "../../platform/SecondFactor.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { requireProof } from "./SecondStep.ts"

/** The actions C19 §4 names (the step records which one it was begun for). */
export type GatedAction = "set_security" | "create_tx_code" | "apply_code" | "pay_internal"

/** What the acting session and its request carry for the gate. */
export interface SecondFactorCaller {
  readonly walletId: string
  /** The wallet's flags as the session read them (Require2FA decides whether the gate applies). */
  readonly flags: number
  readonly keyType: KeyType
  readonly confirmationTimetick: string | undefined
  readonly confirmationCode: string | undefined
  readonly signResult: string | undefined
}

export type SecondFactorError =
  InvalidRequest | ConfirmationFailed | ConfirmationExpired | TransactionNotPending | ExternalIdConflict

const paramsHashOf = (action: GatedAction, params: unknown): Uint8Array =>
  new Uint8Array(
    createHash("sha256")
      .update(JSON.stringify([action, params]), "utf8")
      .digest()
  )

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i])

export class SecondFactorGate extends Context.Service<
  SecondFactorGate,
  {
    /**
     * Runs `action` when the wallet has no Require2FA or `required` is false; else step one (answers
     * SecondFactorNeeded) or step two (checks the proof for these `params`, then runs `action`).
     */
    readonly guard: <A, E, R>(
      caller: SecondFactorCaller,
      what: { readonly action: GatedAction; readonly params: unknown; readonly required: boolean },
      action: Effect.Effect<A, E, R>
    ) => Effect.Effect<A | SecondFactorNeeded, E | SecondFactorError, R>
  }
>()("core/SecondFactorGate") {
  static readonly layer = Layer.effect(
    SecondFactorGate,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const ttlMs = (yield* AppConfigService).confirmationTtlSeconds * 1000

      const begin = (caller: SecondFactorCaller, action: GatedAction, paramsHash: Uint8Array) =>
        Effect.gen(function* () {
          const confirmation = newConfirmation(true, caller.keyType, new Date(Date.now() + ttlMs))
          const txId = String(ticks.next())
          const { reserve } = confirmation
          yield* db(
            insertSecondFactorStep(
              {
                txId: BigInt(txId),
                walletId: BigInt(caller.walletId),
                action,
                paramsHash,
                channel: reserve.channel === "Sign" ? "Sign" : "Code",
                codeHash: reserve.codeHash,
                attemptsLeft: reserve.attempts,
                expiresAt: reserve.expiresAt
              },
              reserve.codeForEvent === null
                ? null
                : { walletId: caller.walletId, txId, code: reserve.codeForEvent, action },
              BigInt(Date.now()) * 1000n
            )
          )
          return {
            confirmationStatusCode: confirmation.answer.confirmationStatusCode,
            confirmationTimetick: asTxId(txId)
          } satisfies SecondFactorNeeded
        })

      const notPending = (txId: string) =>
        new TransactionNotPending({ message: `confirmationTimetick: ${txId} is not waiting for confirmation` })

      /** Step two: the proof for this step of this wallet, for these parameters; the step is used up. */
      const confirm = (caller: SecondFactorCaller, txId: string, action: GatedAction, paramsHash: Uint8Array) =>
        Effect.gen(function* () {
          yield* requireProof(caller.confirmationCode, caller.signResult)
          const step = yield* db(findSecondFactorStep(txId))
          if (step === undefined || String(step.walletId) !== caller.walletId) return yield* notPending(txId)
          if (step.expiresAt.getTime() <= Date.now()) {
            yield* db(takeSecondFactorStep(txId))
            return yield* new ConfirmationExpired({ message: "confirmationCode: the confirmation expired" })
          }
          if (step.action !== action || !sameBytes(step.paramsHash, paramsHash))
            return yield* new ExternalIdConflict({
              message: "confirmationTimetick: step one was asked with other parameters"
            })
          const valid =
            step.channel === "Sign"
              ? caller.signResult !== undefined &&
                caller.signResult.length > 0 &&
                signatureMatches(yield* db(signingKeysOf(caller.walletId)), txId, caller.signResult)
              : caller.confirmationCode !== undefined &&
                step.codeHash !== null &&
                codeMatches(step.codeHash, caller.confirmationCode)
          if (!valid) {
            const left = yield* db(spendSecondFactorAttempt(txId))
            if (left > 0) {
              const field = step.channel === "Sign" ? "X-SignResult" : "confirmationCode"
              return yield* new ConfirmationFailed({ message: `${field}: does not match; ${left} attempt(s) left` })
            }
            yield* db(takeSecondFactorStep(txId))
            return yield* new ConfirmationExpired({ message: "confirmationCode: no attempts left" })
          }
          if (!(yield* db(takeSecondFactorStep(txId)))) return yield* notPending(txId)
        })

      return SecondFactorGate.of({
        guard: (caller, what, action) => {
          if (!what.required || (caller.flags & WalletFlag.Require2FA) === 0) return action
          const paramsHash = paramsHashOf(what.action, what.params)
          if (caller.confirmationTimetick === undefined) {
            return caller.confirmationCode === undefined
              ? begin(caller, what.action, paramsHash)
              : Effect.fail(new InvalidRequest({ message: "confirmationTimetick: required with confirmationCode" }))
          }
          return Effect.flatMap(confirm(caller, caller.confirmationTimetick, what.action, paramsHash), () => action)
        }
      })
    })
  )
}
