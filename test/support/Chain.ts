/**
 * Crypto rails test helpers (C15): a crypto terminal, blocks pushed as a scanner does, and the
 * reads tests check after each push.
 */
import { assert } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import type { Reply, TestClient } from "./Client.ts"

/**
 * An Ethereum token terminal (ERC20 contract, ETH as its currency, 18 decimals) by default, so a
 * file may add many (a network has one Base terminal); overrides replace any field.
 */
export const addCryptoTerminal = async (client: TestClient, overrides: Record<string, unknown> = {}) => {
  const reply = await client.priv("POST", "add_network", {
    typeNetwork: 2,
    typeContract: 1,
    addressContract: someEvmAddress(),
    currencyId: "ETH",
    decimals: 18,
    flags: 3,
    defaultHotAddress: null,
    defaultSystemWalletId: null,
    walletGroups: [],
    confirmations: 3,
    ...overrides
  })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result as { id: string; confirmations: number; requirePartnerInfo: boolean } & Record<string, any>
}

/** A random EVM address nobody owns (lower case). */
export const someEvmAddress = (): string => "0x" + randomBytes(20).toString("hex")

export const blockHash = (label: string): string => `b${label.replace(/[^0-9A-Za-z]/g, "")}`

export interface ItemIn {
  readonly txHash: string
  readonly index?: number
  readonly direction?: "in" | "out"
  readonly from?: string | null
  readonly to: string
  readonly memo?: string | null
  readonly amount: string
  readonly txId?: string | null
}

/** Pushes one block; `parent` defaults to the hash of label height−1 on the same fork letter. */
export const pushBlock = (
  client: TestClient,
  tokenNetwork: string,
  block: { height: number; hash: string; parentHash: string; items?: ReadonlyArray<ItemIn> }
): Promise<Reply> =>
  client.priv("POST", "tx_list_push", {
    tokenNetwork,
    height: block.height,
    hash: block.hash,
    parentHash: block.parentHash,
    items: (block.items ?? []).map((i) => ({
      txHash: i.txHash,
      index: i.index ?? 0,
      direction: i.direction ?? "in",
      from: i.from ?? null,
      to: i.to,
      memo: i.memo ?? null,
      amount: i.amount,
      txId: i.txId ?? null
    }))
  })

/** Pushes and requires a 200, answering the result. */
export const pushOk = async (
  client: TestClient,
  tokenNetwork: string,
  block: { height: number; hash: string; parentHash: string; items?: ReadonlyArray<ItemIn> }
) => {
  const reply = await pushBlock(client, tokenNetwork, block)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result as {
    tipHeight: number
    replayed: boolean
    orphaned: Array<number>
    items: Array<{ txHash: string; index: number; direction: string; txId: string | null; walletId: string | null }>
  }
}

/** A chain of empty blocks `fork`+height, heights from..to, each on the previous. */
export const emptyBlocks = async (client: TestClient, tokenNetwork: string, fork: string, from: number, to: number) => {
  for (let h = from; h <= to; h++)
    await pushOk(client, tokenNetwork, { height: h, hash: `${fork}${h}`, parentHash: `${fork}${h - 1}` })
}

/** Block `fork`+height on `fork`+(height − 1), with these items; requires a 200. */
export const blockOk = (
  client: TestClient,
  tokenNetwork: string,
  fork: string,
  height: number,
  items: ReadonlyArray<ItemIn> = []
) => pushOk(client, tokenNetwork, { height, hash: `${fork}${height}`, parentHash: `${fork}${height - 1}`, items })

/** get_tx_info of the session's wallet. */
export const txInfo = async (client: TestClient, sid: string, txId: string) => {
  const reply = await client.call("GET", `/core/v1/wallet/get_tx_info?id=${txId}`, { sid })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result as { txState: number; amount: number; fee: number; walletTo: string } & Record<string, any>
}

/** The signer's queue item (list_txs_to_send) for `address` on `tokenNetwork`: exactly one. */
export const queuedFor = async (client: TestClient, tokenNetwork: string, address: string) => {
  const listed = await client.priv("GET", `list_txs_to_send?tokenNetwork=${tokenNetwork}&limit=1000`)
  assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
  const items = (listed.body.result as Array<any>).filter((i) => i.toAddress === address)
  assert.strictEqual(items.length, 1, JSON.stringify(listed.body))
  return items[0]
}
