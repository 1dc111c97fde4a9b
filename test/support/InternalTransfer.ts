/**
 * What the internal-transfer test files (internal-transfer-step-one, -step-two, -history-and-limits)
 * share: the service of the file with this area's tariffs, and the transfer helpers bound to its
 * client (parties, buckets, both steps, tx reads, the notification events, the Ed25519 signing of
 * the X-SignResult channel).
 *
 * Tariffs of these files: a plain transfer of USDT costs 0.5 + 1 %, a self wallet transfer 0.1 flat;
 * EUR transfers cost 0.25 and the fee goes to a user wallet named as the profit wallet.
 */
import { type KeyObject, sign } from "node:crypto"
import { assert } from "@effect/vitest"
import { makeClient, type Party } from "./Client.ts"
import { exact, serviceForFile } from "./Fixtures.ts"
import type { RunningService } from "./Service.ts"

export const innerFee = (amount: number) => exact(0.5 + amount / 100)
export const selfFee = 0.1
export const eurFee = 0.25

export interface TransferBody {
  recipient: string
  currency?: string
  amount: number | string
  tag?: string
  clientNonce?: string | number
}

/** The raw 32-byte Ed25519 public key (the last 32 bytes of its SPKI DER), base64. */
export const rawPublicKey = (publicKey: KeyObject) =>
  publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("base64")

/** The base64 Ed25519 signature of the txId's decimal string (X-SignResult). */
export const signTx = (privateKey: KeyObject, txId: string) =>
  sign(null, Buffer.from(txId), privateKey).toString("base64")

/** Starts the file's service with this area's tariffs; answers it with the helpers bound to it. */
export const internalTransferFile = () => {
  /** The EUR profit wallet: filled in by the setup, before the file's tests run. */
  const eurProfit = {} as Party
  const { service, client } = serviceForFile({
    setup: async (c) => {
      Object.assign(eurProfit, await c.party())
      await c.setTariffs([
        { txClass: "InnerTransfer", currency: "USDT", feeFixed: "0.5", feePercent: "1" },
        { txClass: "SelfTransfer", currency: "USDT", feeFixed: "0.1", feePercent: "0" },
        { txClass: "InnerTransfer", currency: "EUR", feeFixed: "0.25", feePercent: "0", profitWalletId: eurProfit.id }
      ])
    }
  })

  const newClientId = client.newClientId
  let unique = 0
  const suffix = () => `${String(Date.now()).slice(-6)}${String(unique++).padStart(3, "0")}`

  /** A wallet with its own session, funded with `fund` USDT (default 100). */
  const party = (options: { clientId?: string; fund?: string; extra?: Record<string, unknown> } = {}) =>
    client.party({ ...options, fund: options.fund ?? "100" })

  const bucketsOf = client.bucketsOf
  const assertBuckets = async (who: Party, free: number, lockOut: number, currency = "USDT", label = "") => {
    const b = await bucketsOf(who, currency)
    assert.strictEqual(b.free, exact(free), `${label} free`)
    assert.strictEqual(b.lockOut, exact(lockOut), `${label} lockOut`)
    assert.strictEqual(b.lockIn, 0, `${label} lockIn`)
  }

  const bodyOf = (body: TransferBody) => ({ currency: "USDT", ...body })

  /** POST internal_transfer: step one without `query`, step two with it. */
  const transfer = (
    sid: string,
    body: TransferBody,
    options: { query?: Record<string, string>; headers?: Record<string, string> } = {}
  ) => client.transfer(sid, bodyOf(body), options)

  /** Step one that must succeed. */
  const begin = async (from: Party, body: TransferBody, headers?: Record<string, string>) => {
    const reply = await transfer(from.sid, body, { headers })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result as { txId: string; fee: number; confirmationStatusCode: string; confirmationCode?: string }
  }

  /** Step two with a code. */
  const confirm = (from: Party, body: TransferBody, txId: string, code: string, headers?: Record<string, string>) =>
    client.confirmTransfer(from.sid, bodyOf(body), txId, code, headers)

  /** Both steps with the inline code; answers the txId. */
  const sendAndSettle = async (from: Party, body: TransferBody) => {
    const one = await begin(from, body)
    assert.strictEqual(one.confirmationStatusCode, "NeedCodeConfirm")
    assert.isString(one.confirmationCode)
    const two = await confirm(from, body, one.txId, one.confirmationCode!)
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.strictEqual(two.body.result.confirmationStatusCode, "Confirmed")
    assert.strictEqual(two.body.result.txId, one.txId)
    return one
  }

  const txInfo = (who: Party, id: string) =>
    client.call("GET", `/core/v1/wallet/get_tx_info?id=${id}`, { sid: who.sid })
  const txOf = async (who: Party, id: string) => {
    const reply = await txInfo(who, id)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result
  }

  const eventsOfTx = async (txId: string) => (await client.allEvents()).filter((e) => e.payload?.txId === txId)

  /** The one-time code the service sent through the notification channel (C12). */
  const codeEventOf = async (txId: string) => {
    const found = (await eventsOfTx(txId)).filter((e) => e.kind === "ConfirmationCode")
    assert.strictEqual(found.length, 1, `one ConfirmationCode event for ${txId}`)
    return found[0]
  }

  const assertLedgerSound = (on: RunningService = service()) => makeClient(on).assertLedgerSound()

  return {
    service,
    client,
    eurProfit,
    newClientId,
    suffix,
    party,
    bucketsOf,
    assertBuckets,
    transfer,
    begin,
    confirm,
    sendAndSettle,
    txInfo,
    txOf,
    eventsOfTx,
    codeEventOf,
    assertLedgerSound
  }
}
