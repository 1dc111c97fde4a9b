/**
 * evm_scanner (issue #27 item 4): blocks/s and transfers/s the reference scanner (tools/evm/scanner,
 * its own process, `npm run scanner`) ingests from a Hardhat node into the service, beside the
 * service's own tx_list_push ingestion of the same blocks pushed directly (the anchor: the items
 * precomputed, one push per block in order, nothing read from the node). Blocks of BENCH_EVM_TRANSFERS
 * (200) ERC-20 transfers to watched addresses, BENCH_EVM_BLOCKS (20) of them; every round feeds a
 * fresh ERC20 terminal of the same token, so each starts an empty chain (first push: the block before
 * the range). ours/anchor is the scanner's share of the service's ingestion rate.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { formatUnits, getAddress, parseAbiItem, type Address } from "viem"
import { makeClient } from "../support/Client.ts"
import { fmt, median, type Benchmark } from "../support/Harness.ts"
import { createDatabase, databaseUrl as databaseUrlOf, dropDatabase, serverUrl } from "../support/Postgres.ts"
import { startHardhat } from "../support/EvmChain.ts"
import { positive } from "../support/Settings.ts"
import { describeDatabase, freePort, root, startService } from "../support/Service.ts"

/** The account xpub (m/44'/60'/0') of the BIP-39 test mnemonic "abandon … about". */
const xpub =
  "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt"
const transfer = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")

interface Ingest {
  readonly seconds: number
  readonly blocks: number
  readonly transfers: number
}

export const evmScanner: Benchmark<Ingest, Ingest> = {
  name: "evm_scanner",
  summary: "blocks/s and transfers/s the reference EVM scanner ingests from Hardhat's node vs direct tx_list_push",
  prepare: async (run) => {
    const blocks = Math.round(positive("BENCH_EVM_BLOCKS", 20))
    const perBlock = Math.round(positive("BENCH_EVM_TRANSFERS", 200))
    const wallets = Math.round(positive("BENCH_WALLETS", 200))
    const server = process.env.DATABASE_URL ? serverUrl() : undefined
    const database = server === undefined ? undefined : await createDatabase(server, "bench_evm")
    if (server !== undefined && database !== undefined) run.defer(() => dropDatabase(server, database))
    const databaseUrl = server === undefined || database === undefined ? undefined : databaseUrlOf(server, database)
    const service = await startService({ databaseUrl, env: { XPUB_ETHEREUM: xpub } })
    run.defer(service.stop)
    const node = await startHardhat()
    run.defer(node.stop)
    console.log(`   our service: ${describeDatabase(service)}; Hardhat node ${node.url}`)
    const client = makeClient(service)

    // Watched addresses: one derived address per wallet.
    const addresses: Array<Address> = []
    const base = await client.privResult("add_network", {
      typeNetwork: 2,
      typeContract: 0,
      currencyId: "ETH",
      decimals: 18,
      flags: 3,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    for (let i = 0; i < wallets; i++) {
      const wallet = await client.createWallet(String(Date.now() * 1000 + i))
      const sid = await client.createSession(wallet.id)
      const reply = await client.call("GET", `/core/v1/wallet/create_address?token_network=${base.id}`, { sid })
      addresses.push(reply.body.result.address)
    }
    const token = await node.deployToken()
    console.log(`   making ${blocks} blocks of ${perBlock} transfers to ${wallets} watched addresses…`)
    const range = await node.makeBlocks(token, addresses, blocks, perBlock)
    const start = await node.chain.getBlock({ blockNumber: BigInt(range.first - 1) })

    // The anchor's pushes: exactly the items the scanner makes of these blocks.
    const pushes: Array<{ height: number; hash: string; parentHash: string; items: Array<object> }> = []
    for (let h = range.first; h <= range.last; h++) {
      const block = await node.chain.getBlock({ blockNumber: BigInt(h) })
      const logs = await node.chain.getLogs({ address: token, event: transfer, blockHash: block.hash })
      pushes.push({
        height: h,
        hash: block.hash,
        parentHash: block.parentHash,
        items: logs.map((l) => ({
          txHash: l.transactionHash,
          index: l.logIndex,
          direction: "in",
          from: getAddress(l.args.from!),
          to: getAddress(l.args.to!),
          memo: null,
          amount: formatUnits(l.args.value!, 6),
          txId: null
        }))
      })
    }
    const transfers = pushes.reduce((n, p) => n + p.items.length, 0)

    /** A fresh ERC20 terminal of the token whose chain starts at the block before the range. */
    const freshTerminal = async (): Promise<string> => {
      const terminal = await client.privResult("add_network", {
        typeNetwork: 2,
        typeContract: 1,
        addressContract: token,
        currencyId: "USDT",
        decimals: 6,
        flags: 3,
        defaultHotAddress: null,
        defaultSystemWalletId: null,
        walletGroups: [],
        confirmations: 1000
      })
      await client.privResult("tx_list_push", {
        tokenNetwork: terminal.id,
        height: range.first - 1,
        hash: start.hash,
        parentHash: start.parentHash,
        items: []
      })
      return terminal.id
    }

    const direct = async (): Promise<Ingest> => {
      const terminal = await freshTerminal()
      const began = performance.now()
      for (const push of pushes) await client.privResult("tx_list_push", { tokenNetwork: terminal, ...push })
      return { seconds: (performance.now() - began) / 1000, blocks: pushes.length, transfers }
    }

    const scanner = async (): Promise<Ingest> => {
      const terminal = await freshTerminal()
      const metricsPort = await freePort()
      const child = spawn(process.execPath, ["--import", "tsx", join(root, "tools/evm/scanner/main.ts")], {
        cwd: root,
        stdio: "ignore",
        env: {
          ...(process.env as Record<string, string>),
          SCANNER_RPC_URL: node.url,
          SCANNER_SERVICE_URL: service.base,
          SCANNER_KEY: service.key,
          SCANNER_TERMINAL_ID: terminal,
          SCANNER_POLL_MS: "20",
          SCANNER_METRICS_PORT: String(metricsPort),
          SCANNER_TOKEN_CONTRACT: token,
          SCANNER_TOKEN_DECIMALS: "6"
        }
      })
      try {
        const tip = async () => {
          try {
            const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
            const line = text.split("\n").find((l) => l.startsWith("scanner_tip_height"))
            return line === undefined ? 0 : Number(line.split(" ").at(-1))
          } catch {
            return -1
          }
        }
        // The clock starts once the process serves its metrics (tsx start-up excluded).
        while ((await tip()) < 0) await new Promise((r) => setTimeout(r, 10))
        const began = performance.now()
        while ((await tip()) < range.last) await new Promise((r) => setTimeout(r, 10))
        return { seconds: (performance.now() - began) / 1000, blocks: pushes.length, transfers }
      } finally {
        child.kill("SIGTERM")
        await new Promise((r) => child.once("exit", r))
      }
    }

    const report = (r: Ingest) =>
      `${fmt(r.blocks / r.seconds, 1)} blocks/s, ${fmt(r.transfers / r.seconds)} transfers/s (${fmt(r.seconds, 2)} s)`
    return {
      anchor: { label: "tx_list_push", measure: direct, report },
      ours: { label: "scanner", measure: scanner, report },
      conclude: (rounds) => {
        const ours = median(rounds.map((r) => r.ours.transfers / r.ours.seconds))
        const anchor = median(rounds.map((r) => r.anchor.transfers / r.anchor.seconds))
        return {
          ratio: ours / anchor,
          headline: { anchor: `tx_list_push ${fmt(anchor)} transfers/s`, ours: `${fmt(ours)} transfers/s` },
          lines: [
            `   medians: scanner ${fmt(ours)} transfers/s (${fmt(ours / perBlock, 1)} blocks/s), direct tx_list_push ${fmt(anchor)} transfers/s (${fmt(anchor / perBlock, 1)} blocks/s)`
          ],
          record: { blocks, perBlock, wallets, scannerTransfersPerSecond: ours, directTransfersPerSecond: anchor }
        }
      }
    }
  }
}
