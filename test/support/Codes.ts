/**
 * What the code test files (codes-creation-and-transitions, codes-access-and-redemption) share:
 * the file's service with this area's tariff, and the code helpers bound to its client (funded
 * parties, bucket deltas, create_tx_code, apply_code with a fresh client_nonce, cancel_tx,
 * cancel_code, get_tx_info by code).
 *
 * Tariff of these files: every InnerTransfer-class USDT operation (codes included) costs 0.5 flat.
 */
import { assert } from "@effect/vitest"
import type { Buckets, Party } from "./Client.ts"
import { errorCode, exact, qs, serviceForFile } from "./Fixtures.ts"

export const E = { ...errorCode, NotPending: errorCode.TransactionNotPending, NotFound: errorCode.TransactionNotFound }

export const fee = 0.5

/** The amount of the codes the tests make. */
export const A = 10

export interface CodeOut {
  timetick: string
  code: string
  currency: string
  amount: number
  typeTx: number
  stateCode: number
  state: string
  isOwner: boolean
  dateTxUTC: string
}

export type Ref = { code: string } | { id: string }

/** Starts the file's service with this area's tariff; answers the code helpers bound to it. */
export const codesFile = () => {
  const { client } = serviceForFile({
    setup: (c) => c.setTariffs([{ txClass: "InnerTransfer", currency: "USDT", feeFixed: "0.5", feePercent: "0" }])
  })

  let nonce = Date.now() * 10

  /** A wallet with its own session, funded with `fund` USDT (default 100). */
  const party = (fund = "100", clientId?: string) => client.party({ fund, clientId })

  const bucketsOf = (who: Party) => client.bucketsOf(who)
  /** Asserts `who` moved by exactly (free, lockOut) since `before`, with lock_in untouched. */
  const assertMoved = async (
    who: Party,
    before: Omit<Buckets, "lockOrders">,
    free: number,
    lockOut: number,
    label: string
  ) => {
    const now = await bucketsOf(who)
    assert.strictEqual(exact(now.free - before.free), exact(free), `${label}: free delta`)
    assert.strictEqual(exact(now.lockOut - before.lockOut), exact(lockOut), `${label}: lockOut delta`)
    assert.strictEqual(now.lockIn, before.lockIn, `${label}: lockIn`)
  }

  const createCode = (who: Party, body: Record<string, unknown>) =>
    client.call("POST", "/core/v1/create_tx_code", { sid: who.sid, body: { currency: "USDT", ...body } })

  const newCode = async (
    who: Party,
    typeTx: number,
    amount = 10,
    extra: Record<string, unknown> = {}
  ): Promise<CodeOut> => {
    const reply = await createCode(who, { amount, typeTx, ...extra })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result
  }

  const apply = (who: Party, ref: Ref, options: { amount?: number | string; nonce?: number | null } = {}) =>
    client.call(
      "POST",
      `/core/v1/apply_code?${qs({
        ...ref,
        amount: options.amount,
        client_nonce: options.nonce === null ? undefined : (options.nonce ?? nonce++)
      })}`,
      { sid: who.sid }
    )
  const cancelTx = (who: Party, ref: Record<string, string>) =>
    client.call("POST", `/core/v1/wallet/cancel_tx?${qs(ref)}`, { sid: who.sid })
  const cancelCode = (who: Party, ref: Record<string, string>) =>
    client.call("POST", `/core/v1/cancel_code?${qs(ref)}`, { sid: who.sid })
  const txInfo = (who: Party, ref: Record<string, string>) =>
    client.call("GET", `/core/v1/wallet/get_tx_info?${qs(ref)}`, { sid: who.sid })
  const stateOf = async (who: Party, code: string) => {
    const reply = await txInfo(who, { code })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result
  }
  /** A fresh client_nonce, from the same counter apply uses. */
  const nextNonce = () => nonce++

  return {
    client,
    nextNonce,
    party,
    bucketsOf,
    assertMoved,
    createCode,
    newCode,
    apply,
    cancelTx,
    cancelCode,
    txInfo,
    stateOf
  }
}
