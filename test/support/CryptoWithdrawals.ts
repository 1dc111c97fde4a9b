/**
 * What the withdrawal test files (crypto-withdrawals, crypto-signer-queue) share: the terminals of
 * the file (added through add_network), the Withdraw tariffs, and the helpers of create_withdraw's
 * two steps, the cancels and the signer's two calls, bound to the file's client.
 *
 * Figures: USDT on the ERC20 terminal has networkFee 1 and the Withdraw tariff 0.5 + 1 %, so a
 * withdrawal of 10 USDT costs fee 1.6 (of which networkFee 1) and reserves 11.6.
 */
import { assert } from "@effect/vitest"
import { makeClient, type Party, type TestClient } from "./Client.ts"
import { exact, qs, serviceForFile } from "./Fixtures.ts"
import type { RunningService, StartOptions } from "./Service.ts"

/** Valid addresses of their networks (EIP-55, a Tron contract, Solana's system program). */
export const ethAddress = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
export const otherEthAddress = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
export const tronAddress = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
export const solanaAddress = "11111111111111111111111111111111"

export const usdtFee = (amount: number) => exact(0.5 + amount / 100 + 1)

export interface FileTerminals {
  /** Ethereum Base, ETH, networkFee 0.001, Deposit | Withdraw. */
  eth: string
  /** Ethereum ERC20 USDT, networkFee 1, Withdraw. */
  usdt: string
  /** Tron TRC20 USDT (no source transfers), Withdraw. */
  usdtTron: string
  /** Solana SPL USDC (a memo network), Withdraw. */
  usdcSolana: string
  /** Bitcoin Base, Deposit only. */
  btcDepositOnly: string
  /** BnbSmartChain BEP20 USDC open to wallet group 7 only. */
  usdcBscGroup7: string
  /** A card terminal (not a crypto network). */
  card: string
}

const terminal = (typeNetwork: number, typeContract: number, currencyId: string, decimals: number, more = {}) => ({
  typeNetwork,
  typeContract,
  currencyId,
  decimals,
  flags: 2,
  defaultHotAddress: null,
  defaultSystemWalletId: null,
  walletGroups: [],
  ...more
})

/** Adds the file's terminals and tariffs to a running service. */
export const setUpWithdrawals = async (c: TestClient): Promise<FileTerminals> => {
  const add = async (body: Record<string, unknown>) => {
    const reply = await c.priv("POST", "add_network", body)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result.id as string
  }
  const terminals: FileTerminals = {
    eth: await add(terminal(2, 0, "ETH", 18, { networkFee: "0.001", flags: 3 })),
    usdt: await add(
      terminal(2, 1, "USDT", 6, { networkFee: "1", addressContract: "0xdAC17F958D2ee523a2206206994597C13D831ec7" })
    ),
    usdtTron: await add(terminal(3, 2, "USDT", 6, { networkFee: "0.5" })),
    usdcSolana: await add(terminal(5, 5, "USDC", 6)),
    btcDepositOnly: await add(terminal(1, 0, "BTC", 8, { flags: 1 })),
    usdcBscGroup7: await add(terminal(4, 3, "USDC", 6, { walletGroups: [7] })),
    card: await add(terminal(100, 0, "USD", 2))
  }
  await c.setTariffs([{ txClass: "Withdraw", currency: "USDT", feeFixed: "0.5", feePercent: "1" }])
  return terminals
}

export interface WithdrawBody {
  tokenNetwork?: string
  address?: string
  amount?: number | string
  memo?: string
  tag?: string
  clientNonce?: string | number
  requireClientAssetSource?: boolean
  sourceAddress?: string
}

export interface StepOne {
  txId: string
  fee: number
  networkFee: number
  confirmationStatusCode: string
  confirmationCode?: string
}

/** The helpers of create_withdraw, cancels and the signer, on one client. */
export const withdrawHelpers = (client: TestClient, terminals: FileTerminals) => {
  const bodyOf = (body: WithdrawBody) => ({ tokenNetwork: terminals.usdt, address: ethAddress, amount: 10, ...body })

  const withdraw = (
    sid: string,
    body: WithdrawBody,
    options: { query?: Record<string, string>; headers?: Record<string, string> } = {}
  ) =>
    client.call(
      "POST",
      `/core/v1/wallet/create_withdraw${options.query === undefined ? "" : "?" + new URLSearchParams(options.query)}`,
      { sid, body: bodyOf(body), headers: options.headers }
    )

  const begin = async (who: Party, body: WithdrawBody = {}, headers?: Record<string, string>) => {
    const reply = await withdraw(who.sid, body, { headers })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result as StepOne
  }

  const confirm = (who: Party, txId: string, code: string, body: WithdrawBody = {}, headers?: Record<string, string>) =>
    withdraw(who.sid, body, { query: { confirmationTimetick: txId, confirmationCode: code }, headers })

  /** Both steps with the inline code: the withdrawal is Queued. */
  const queue = async (who: Party, body: WithdrawBody = {}) => {
    const one = await begin(who, body)
    const two = await confirm(who, one.txId, one.confirmationCode!, body)
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.strictEqual(two.body.result.confirmationStatusCode, "Confirmed")
    return one
  }

  const cancel = (who: Party, id: string, action: "cancel_tx" | "cancel_withdraw" = "cancel_tx") =>
    client.call("POST", `/core/v1/wallet/${action}?id=${id}`, { sid: who.sid })

  const list = (query: Record<string, string | number | undefined> = {}) =>
    client.priv("GET", `list_txs_to_send?${qs(query)}`)

  const report = (body: Record<string, unknown>) => client.priv("POST", "tx_send_report", body)

  const txOf = async (who: Party, id: string) => {
    const reply = await client.call("GET", `/core/v1/wallet/get_tx_info?id=${id}`, { sid: who.sid })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result
  }

  const assertBuckets = async (who: Party, free: number, lockOut: number, currency = "USDT", label = "") => {
    const b = await client.bucketsOf(who, currency)
    assert.strictEqual(b.free, exact(free), `${label} free`)
    assert.strictEqual(b.lockOut, exact(lockOut), `${label} lockOut`)
  }

  /** A wallet with its own session and `usdt` USDT (default 100). */
  const party = (usdt = "100", extra: Record<string, unknown> = {}) => client.party({ fund: { USDT: usdt }, extra })

  return { bodyOf, withdraw, begin, confirm, queue, cancel, list, report, txOf, assertBuckets, party }
}

/** The file's service with its terminals and tariffs, and the helpers bound to it. */
export const withdrawFile = (options: StartOptions = {}) => {
  const terminals = {} as FileTerminals
  const { service, client } = serviceForFile({
    ...options,
    setup: async (c) => {
      Object.assign(terminals, await setUpWithdrawals(c))
    }
  })
  return { service, client, terminals, ...withdrawHelpers(client, terminals) }
}

/** A separate service (e.g. a short CONFIRMATION_TTL_SECONDS) set up the same way. */
export const withdrawService = async (running: RunningService) => {
  const client = makeClient(running)
  const terminals = await setUpWithdrawals(client)
  return { client, terminals, ...withdrawHelpers(client, terminals) }
}
