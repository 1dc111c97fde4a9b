/**
 * One queue item (C15 list_txs_to_send) to one transaction on the chain, at most once:
 *
 * 1. Already signed for this txId (SignedStore): make sure the node has it (the same raw
 *    transaction is sent again if it does not), then report it — never a second transaction.
 * 2. Else, under the source address's nonce lock: nonce = max(node's pending count, the folder's
 *    last nonce + 1); sign (native: value with the withdrawal tag as data unless the recipient is a
 *    contract; token: `transfer(to, amount)` with the tag appended); store; broadcast.
 * 3. Report `broadcast` with the hash. Only a node's explicit refusal of a transaction it does not
 *    hold is reported `failed` (the money goes back to the wallet); a timeout or a lost connection is
 *    retried, since the transaction may be out.
 */
import {
  concatHex,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  erc20Abi,
  http,
  keccak256,
  parseUnits,
  type Address,
  type Hex
} from "viem"
import type { HDAccount } from "viem/accounts"
import { log } from "../shared/Backoff.ts"
import { ServiceRefusal, type ServiceClient } from "../shared/ServiceClient.ts"
import { tagOf } from "../shared/TxTag.ts"
import type { SignerKeys } from "./Keys.ts"
import type { SignedStore, SignedTx } from "./SignedStore.ts"

export interface QueueItem {
  readonly txId: string
  readonly kind: "Withdrawal" | "Refund"
  readonly tokenNetwork: string
  readonly typeContract: number
  readonly currency: string
  readonly addressContract: string | null
  readonly toAddress: string
  readonly amount: string
  readonly sourceAddress: string | null
  readonly sourceDerivationIndex: number | null
}

export interface Sender {
  readonly handle: (item: QueueItem) => Promise<void>
}

/** A JSON-RPC refusal by the node (it answered, and said no), as opposed to a transport failure. */
const nodeRefused = (error: unknown): boolean => {
  let e = error as { name?: string; cause?: unknown; details?: string } | undefined
  for (let depth = 0; e !== undefined && depth < 5; depth++) {
    if (e.name === "RpcRequestError" || e.name === "InternalRpcError" || e.name === "InvalidInputRpcError") return true
    e = e.cause as typeof e
  }
  return false
}

export const makeSender = (deps: {
  readonly rpcUrl: string
  readonly service: ServiceClient
  readonly keys: SignerKeys
  readonly store: SignedStore
}): Sender => {
  const { service, keys, store } = deps
  const transport = http(deps.rpcUrl, { retryCount: 0, timeout: 20_000 })
  const chain = createPublicClient({ transport })
  const decimalsOf = new Map<string, number>()
  let chainId: number | undefined
  const walletFor = async (account: HDAccount) => {
    chainId ??= await chain.getChainId()
    const definition = defineChain({
      id: chainId,
      name: `chain ${chainId}`,
      nativeCurrency: { name: "coin", symbol: "COIN", decimals: 18 },
      rpcUrls: { default: { http: [deps.rpcUrl] } }
    })
    return createWalletClient({ account, transport, chain: definition })
  }

  const report = async (txId: string, body: { result: "broadcast" | "failed"; txHash?: string; message?: string }) => {
    try {
      await service.post("tx_send_report", { txId, ...body })
      return true
    } catch (error) {
      // 10213: already bound by an out item (OnChain or final) or no longer sendable: nothing to report.
      if (error instanceof ServiceRefusal && (error.code === 10213 || error.code === 10413)) {
        log("signer", `report for ${txId} not needed: ${error.detail}`)
        return true
      }
      throw error
    }
  }

  /** The account that holds the item's source: `0/index` for a client source, else the hot `1/0`. */
  const sourceOf = (item: QueueItem): HDAccount => {
    const account = item.sourceDerivationIndex === null ? keys.hot : keys.deposit(item.sourceDerivationIndex)
    if (item.sourceAddress !== null && item.sourceAddress.toLowerCase() !== account.address.toLowerCase())
      throw new Error(`txId ${item.txId}: source ${item.sourceAddress} is not the key this mnemonic derives`)
    return account
  }

  const amountOf = async (item: QueueItem): Promise<bigint> => {
    if (item.typeContract === 0) return parseUnits(item.amount, 18)
    const contract = item.addressContract!
    let decimals = decimalsOf.get(contract)
    if (decimals === undefined) {
      decimals = await chain.readContract({ address: contract as Address, abi: erc20Abi, functionName: "decimals" })
      decimalsOf.set(contract, decimals)
    }
    return parseUnits(item.amount, decimals)
  }

  const sign = async (item: QueueItem): Promise<SignedTx> => {
    const account = sourceOf(item)
    const wallet = await walletFor(account)
    const value = await amountOf(item)
    const tag = `0x${tagOf(item.txId)}` as Hex
    const to = item.toAddress as Address
    const call =
      item.typeContract === 0
        ? { to, value, data: (await chain.getCode({ address: to })) === undefined ? tag : undefined }
        : {
            to: item.addressContract as Address,
            value: 0n,
            data: concatHex([encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, value] }), tag])
          }
    return store.withNonceLock(account.address, async () => {
      const pending = await chain.getTransactionCount({ address: account.address, blockTag: "pending" })
      const nonce = Math.max(pending, store.lastNonce(account.address) + 1)
      const request = await wallet.prepareTransactionRequest({ ...call, nonce })
      const raw = await wallet.signTransaction(request)
      const signed: SignedTx = {
        txId: item.txId,
        tokenNetwork: item.tokenNetwork,
        from: account.address,
        nonce,
        hash: keccak256(raw),
        raw,
        reported: false
      }
      store.put(signed)
      await broadcast(signed)
      return signed
    })
  }

  /** Sends the stored raw transaction unless the node already has it. */
  const broadcast = async (signed: SignedTx): Promise<void> => {
    const known = await chain.getTransaction({ hash: signed.hash as Hex }).catch(() => null)
    if (known !== null) return
    await chain.sendRawTransaction({ serializedTransaction: signed.raw as Hex })
  }

  const handle = async (item: QueueItem): Promise<void> => {
    const stored = store.get(item.txId)
    if (stored?.failed !== undefined) {
      await report(item.txId, { result: "failed", message: stored.failed })
      return
    }
    let signed = stored
    try {
      if (signed === undefined) {
        signed = await sign(item)
        log("signer", `txId ${item.txId}: sent ${item.amount} ${item.currency} to ${item.toAddress} in ${signed.hash}`)
      } else if (!signed.reported) {
        await broadcast(signed)
        log("signer", `txId ${item.txId}: already signed as ${signed.hash}, reporting it again (not re-sent)`)
      }
    } catch (error) {
      const current = store.get(item.txId)
      const held =
        current === undefined
          ? false
          : (await chain.getTransaction({ hash: current.hash as Hex }).catch(() => null)) !== null
      if (!nodeRefused(error) || held) throw error
      const message = ((error as { shortMessage?: string }).shortMessage ?? (error as Error).message).slice(0, 200)
      if (current !== undefined) store.put({ ...current, failed: message })
      log("signer", `txId ${item.txId}: the node refused it (${message}); reporting failed`)
      await report(item.txId, { result: "failed", message })
      return
    }
    if (signed.reported) {
      if (stored !== undefined)
        log("signer", `txId ${item.txId}: already sent as ${signed.hash} and reported (not re-sent)`)
      return
    }
    await report(item.txId, { result: "broadcast", txHash: signed.hash })
    store.put({ ...signed, reported: true })
  }

  return { handle }
}
