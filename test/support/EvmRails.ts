/**
 * What the EVM test files share: a service with XPUB_ETHEREUM (the account xpub of the mnemonic the
 * signer holds) and scoped scanner/signer keys, a Hardhat node, the ETH Base terminal and an ERC-20
 * terminal of a freshly deployed MinimalToken, wallets with their derived addresses, and the tool
 * settings pointing at all of it.
 */
import { afterAll, assert, beforeAll } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { type Address, erc20Abi, parseEther, parseUnits } from "viem"
import { hardhat } from "viem/chains"
import type { Party, TestClient } from "./Client.ts"
import { XPUB_ETHEREUM_ABANDON } from "./ChainRun.ts"
import { deployToken, type EvmNode, startEvmNode } from "./EvmNode.ts"
import { type ToolProcess } from "./EvmTools.ts"
import { serviceForFile } from "./Fixtures.ts"
import { freePort } from "./Service.ts"

/** The BIP-39 test mnemonic whose m/44'/60'/0' xpub the service is given. */
export const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
export const CONFIRMATIONS = 3

export interface Rails {
  eth: string
  usdt: string
  tokenAddress: Address
}

export const evmFile = () => {
  const keys = { scanner: "scan-" + randomBytes(12).toString("hex"), signer: "sign-" + randomBytes(12).toString("hex") }
  const { service, client } = serviceForFile({
    env: {
      XPUB_ETHEREUM: XPUB_ETHEREUM_ABANDON,
      SERVICE_KEYS: `{key}, scanner:${keys.scanner}, signer:${keys.signer}`
    }
  })
  let node: EvmNode | undefined
  const tools: Array<ToolProcess> = []
  beforeAll(async () => {
    node = await startEvmNode()
  }, 60_000)
  afterAll(async () => {
    for (const tool of tools) await tool.stop("SIGKILL")
    await node?.stop()
  })
  const evm = () => node!

  const addTerminal = async (body: Record<string, unknown>) => {
    const reply = await client.priv("POST", "add_network", {
      typeNetwork: 2,
      flags: 3,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: [],
      confirmations: CONFIRMATIONS,
      ...body
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result.id as string
  }

  /** The ETH terminal and a USDT (6 decimals) ERC-20 terminal of a new MinimalToken. */
  const setUpRails = async (more: Record<string, unknown> = {}): Promise<Rails> => {
    const tokenAddress = await deployToken(evm(), "USDT", 6, parseUnits("1000000", 6))
    const eth = await addTerminal({ typeContract: 0, currencyId: "ETH", decimals: 18, ...more })
    const usdt = await addTerminal({
      typeContract: 1,
      currencyId: "USDT",
      decimals: 6,
      addressContract: tokenAddress,
      ...more
    })
    return { eth, usdt, tokenAddress }
  }

  /** A wallet with a session and its derived Ethereum address. */
  const walletWithAddress = async (rails: Rails): Promise<Party & { evm: Address }> => {
    const party = await client.party()
    const reply = await client.call("GET", `/core/v1/wallet/create_address?token_network=${rails.eth}`, {
      sid: party.sid
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return { ...party, evm: reply.body.result.address as Address }
  }

  const scannerEnv = async (terminal: string, rails: Rails) => ({
    SCANNER_RPC_URL: evm().url,
    SCANNER_SERVICE_URL: service().base,
    SCANNER_KEY: keys.scanner,
    SCANNER_TERMINAL_ID: terminal,
    SCANNER_POLL_MS: "100",
    SCANNER_METRICS_PORT: String(await freePort()),
    SCANNER_TOKEN_CONTRACT: terminal === rails.usdt ? rails.tokenAddress : "",
    SCANNER_TOKEN_DECIMALS: terminal === rails.usdt ? "6" : "18"
  })

  /** Sends ETH and mines it (automine); answers the block height. */
  const sendEth = async (to: Address, ether: string, from = evm().funder) => {
    const hash = await from.sendTransaction({ to, value: parseEther(ether), account: from.account!, chain: hardhat })
    return (await evm().chain.waitForTransactionReceipt({ hash })).blockNumber
  }

  const sendToken = async (rails: Rails, to: Address, amount: string) => {
    const hash = await evm().funder.writeContract({
      address: rails.tokenAddress,
      abi: erc20Abi,
      functionName: "transfer",
      args: [to, parseUnits(amount, 6)],
      account: evm().funder.account!,
      chain: hardhat
    })
    return (await evm().chain.waitForTransactionReceipt({ hash })).blockNumber
  }

  const tokenBalance = (rails: Rails, owner: Address) =>
    evm().chain.readContract({ address: rails.tokenAddress, abi: erc20Abi, functionName: "balanceOf", args: [owner] })

  return {
    keys,
    service,
    client,
    evm,
    tools,
    setUpRails,
    walletWithAddress,
    scannerEnv,
    sendEth,
    sendToken,
    tokenBalance
  }
}

/** A party's ETH or USDT buckets once they equal `expected` (free, lockIn), else undefined. */
export const bucketsAre = async (
  client: TestClient,
  who: Party,
  currency: string,
  expected: { free: number; lockIn: number }
) => {
  const b = await client.bucketsOf(who, currency)
  return b.free === expected.free && b.lockIn === expected.lockIn ? b : undefined
}
