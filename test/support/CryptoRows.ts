/**
 * Crypto rows planted by SQL, for the read side's tests while the writers (chain actor, signer
 * queue) are built elsewhere: terminals, a terminal's chain head and crypto transactions (a
 * `transactions` row plus its `crypto_txs` row). Planted transactions carry no postings, so they
 * move no money and the ledger audit stays sound (it sums balances; no bucket changes).
 *
 * Reaching the service's database: against a real server, a connection of our own; embedded
 * (PGlite in the service process, one connection), the service is stopped keeping its data, the
 * directory opened here, and the service started again on it (sessions are rows, so they survive).
 * A stop and a start take up to 110 s on a loaded machine, so a hook or test that plants allows 240 s.
 */
import { PGlite } from "@electric-sql/pglite"
import { afterAll, afterEach, beforeAll } from "@effect/vitest"
import { Effect } from "effect"
import { makeClient } from "./Client.ts"
import { withDatabase } from "./Postgres.ts"
import { type RunningService, startService } from "./Service.ts"

export interface PlantedTerminal {
  readonly id: string
  readonly typeNetwork: number
  readonly typeContract?: number
  readonly currency: string
  readonly decimals: number
  readonly flags: number
  readonly confirmations: number
}

export interface PlantedHead {
  readonly terminalId: string
  readonly tipHeight: number
  readonly tipHash: string
  readonly reorgs?: number
  readonly deepReorgs?: number
  readonly pushedSecondsAgo?: number
}

/** A crypto transaction; amounts in minor units; chain fields null until seen. */
export interface PlantedTx {
  readonly id: string
  readonly typeTx: number
  readonly txState: number
  readonly walletFrom: string
  readonly walletTo: string
  readonly currency: string
  readonly amount: string
  readonly fee?: string
  readonly terminalId: string
  readonly stage: string
  readonly networkFee?: string
  readonly txHash?: string | null
  readonly index?: number | null
  readonly fromAddress?: string | null
  readonly toAddress?: string | null
  readonly memo?: string | null
  readonly blockHeight?: number | null
  readonly blockHash?: string | null
  readonly orphaned?: boolean
  readonly partnerInfo?: string | null
  readonly description?: string | null
  readonly sourceAddress?: string | null
  readonly refundTxId?: string | null
  readonly incomeTxId?: string | null
  readonly queueTick?: string | null
}

const lit = (value: string | number | boolean | null | undefined): string =>
  value === null || value === undefined
    ? "NULL"
    : typeof value === "string"
      ? `'${value.replace(/'/g, "''")}'`
      : String(value)

/**
 * Transaction ids as the service makes them (timeticks, C5: micros × 1024 + runner × 64 + seq) on
 * runner 15 with the sequence as the low bits: distinct from the service's own while its runner is
 * not 15, and increasing in the order they are taken.
 */
let lastMicros = 0n
export const plantedTxId = (): string => {
  let micros = BigInt(Date.now()) * 1000n
  if (micros <= lastMicros) micros = lastMicros + 1n
  lastMicros = micros
  return String(micros * 1024n + 15n * 64n)
}

export const terminalSql = (t: PlantedTerminal): string =>
  `INSERT INTO terminals (id, type_network, type_contract, currency, decimals, name, flags, confirmations, wallet_groups)
   VALUES (${t.id}, ${t.typeNetwork}, ${t.typeContract ?? 1}, ${lit(t.currency)}, ${t.decimals}, ${lit("planted " + t.id)},
     ${t.flags}, ${t.confirmations}, '{0}')`

export const headSql = (h: PlantedHead): string =>
  `INSERT INTO chain_heads (terminal_id, tip_height, tip_hash, reorgs, deep_reorgs, last_push_at)
   VALUES (${h.terminalId}, ${h.tipHeight}, ${lit(h.tipHash)}, ${h.reorgs ?? 0}, ${h.deepReorgs ?? 0},
     now() - make_interval(secs => ${h.pushedSecondsAgo ?? 0}))
   ON CONFLICT (terminal_id) DO UPDATE SET tip_height = EXCLUDED.tip_height, tip_hash = EXCLUDED.tip_hash,
     reorgs = EXCLUDED.reorgs, deep_reorgs = EXCLUDED.deep_reorgs, last_push_at = EXCLUDED.last_push_at`

/**
 * The transactions in order, each with an update tick taken from the journal clock (as a commit
 * would: the clock moves first, so the service's next commit ticks above them).
 */
export const txsSql = (txs: ReadonlyArray<PlantedTx>): ReadonlyArray<string> =>
  txs.length === 0
    ? []
    : [
        `UPDATE journal_clock SET tick = tick + ${txs.length}`,
        ...txs.flatMap((t, i) => [
          `INSERT INTO transactions (id, id_update, type_tx, tx_state, wallet_from, wallet_to, currency, amount, fee)
   SELECT ${t.id}, tick - ${txs.length - 1 - i}, ${t.typeTx}, ${t.txState}, ${t.walletFrom}, ${t.walletTo}, ${lit(t.currency)},
     ${t.amount}, ${t.fee ?? "0"} FROM journal_clock`,
          `INSERT INTO crypto_txs (tx_id, terminal_id, type_tx, stage, network_fee, tx_hash, idx, from_address, to_address, memo,
     block_height, block_hash, orphaned, partner_info, description, source_address, refund_tx_id, income_tx_id, queue_tick)
   VALUES (${t.id}, ${t.terminalId}, ${t.typeTx}, ${lit(t.stage)}, ${t.networkFee ?? "0"}, ${lit(t.txHash)}, ${lit(t.index)},
     ${lit(t.fromAddress)}, ${lit(t.toAddress)}, ${lit(t.memo)}, ${lit(t.blockHeight)}, ${lit(t.blockHash)},
     ${t.orphaned ?? false}, ${lit(t.partnerInfo)}, ${lit(t.description)}, ${lit(t.sourceAddress)}, ${lit(t.refundTxId)},
     ${lit(t.incomeTxId)}, ${lit(t.queueTick)})`
        ])
      ]

/**
 * One service for this test file (as serviceForFile: the ledger audit after each test), with
 * `plant(sql)` running statements on its database on both paths.
 */
export const cryptoServiceForFile = () => {
  let running: RunningService | undefined
  const service = () => {
    if (running === undefined) throw new Error("the file's service has not started")
    return running
  }
  const client = makeClient(service)
  beforeAll(async () => {
    running = await startService()
  }, 120_000)
  afterEach(() => client.assertLedgerSound())
  afterAll(async () => {
    await running?.stop()
  })
  /** Runs the statements in one transaction on the service's database. */
  const plant = async (statements: ReadonlyArray<string>): Promise<void> => {
    const current = service()
    if (current.databaseUrl !== undefined) {
      await withDatabase(current.databaseUrl, (sql) =>
        sql.withTransaction(Effect.forEach(statements, (statement) => sql.unsafe(statement), { discard: true }))
      )
      return
    }
    await current.stop("SIGTERM", true)
    const db = await PGlite.create(current.dataDir)
    try {
      await db.exec(`BEGIN;\n${statements.join(";\n")};\nCOMMIT;`)
    } finally {
      await db.close()
    }
    running = await startService({ dataDir: current.dataDir })
  }
  return { client, service, plant }
}

/** The terminals of the planted world: an ERC20 on Ethereum, a TRC20 requiring partner info, Bitcoin. */
export const worldTerminals = {
  erc20: { id: "9101", typeNetwork: 2, typeContract: 1, currency: "USDT", decimals: 6, flags: 3, confirmations: 6 },
  trc20: { id: "9102", typeNetwork: 3, typeContract: 2, currency: "USDT", decimals: 6, flags: 11, confirmations: 20 },
  btc: { id: "9103", typeNetwork: 1, typeContract: 0, currency: "BTC", decimals: 8, flags: 3, confirmations: 2 }
} as const satisfies Record<string, PlantedTerminal>

/** Pushes so far: the ERC20 at 105 (2 reorgs, 1 deep, 30 s ago), the TRC20 at 60; Bitcoin never pushed. */
export const worldHeads = {
  erc20: { terminalId: "9101", tipHeight: 105, tipHash: "h105", reorgs: 2, deepReorgs: 1, pushedSecondsAgo: 30 },
  trc20: { terminalId: "9102", tipHeight: 60, tipHash: "h60" }
} as const satisfies Record<string, PlantedHead>

/**
 * A world of crypto transactions of `holder` (and one of `other`, one unattributed), in id order,
 * each a different case of the reads: final, held for partner info, sealed, refunding with its
 * refund, a queued withdrawal never seen on chain, orphaned after Finished, cancelled.
 */
export const cryptoWorld = (holder: string, other: string) => {
  const { btc, erc20, trc20 } = worldTerminals
  const income = (fields: Partial<PlantedTx> & Pick<PlantedTx, "terminalId" | "txState" | "stage">): PlantedTx => ({
    id: plantedTxId(),
    typeTx: 1,
    walletFrom: "-1",
    walletTo: holder,
    currency: "USDT",
    amount: "1000000",
    fromAddress: "TSenderAddress",
    toAddress: "THolderAddress",
    ...fields
  })
  const credited = income({
    terminalId: erc20.id,
    txState: 8,
    stage: "Credited",
    amount: "5000000",
    fee: "100000",
    txHash: "aa01",
    index: 0,
    fromAddress: "0x00000000000000000000000000000000000000f1",
    toAddress: "0x00000000000000000000000000000000000000a1",
    blockHeight: 100,
    blockHash: "h100"
  })
  const awaiting = income({
    terminalId: trc20.id,
    txState: 3,
    stage: "AwaitingPartnerInfo",
    amount: "2500000",
    txHash: "bb02",
    index: 1,
    blockHeight: 50,
    blockHash: "h50"
  })
  const confirming = income({
    terminalId: trc20.id,
    txState: 1,
    stage: "Confirming",
    txHash: "cc03",
    index: 0,
    blockHeight: 58,
    blockHash: "h58"
  })
  const sealed = income({
    terminalId: trc20.id,
    txState: 1,
    stage: "Confirming",
    txHash: "dd04",
    index: 0,
    blockHeight: 59,
    blockHash: "h59",
    partnerInfo: "Acme Ltd",
    description: "invoice 7"
  })
  const refunding = income({
    terminalId: trc20.id,
    txState: 3,
    stage: "Refunding",
    amount: "2500000",
    txHash: "ee05",
    index: 0,
    blockHeight: 40,
    blockHash: "h40"
  })
  const refund: PlantedTx = {
    id: plantedTxId(),
    typeTx: 19,
    txState: 3,
    walletFrom: holder,
    walletTo: "-1",
    currency: "USDT",
    amount: "2000000",
    fee: "500000",
    networkFee: "500000",
    terminalId: trc20.id,
    stage: "Queued",
    toAddress: "TSenderAddress",
    incomeTxId: refunding.id
  }
  const withdrawal: PlantedTx = {
    id: plantedTxId(),
    typeTx: 2,
    txState: 3,
    walletFrom: holder,
    walletTo: "-1",
    currency: "BTC",
    amount: "1234",
    fee: "1500",
    networkFee: "500",
    terminalId: btc.id,
    stage: "Queued",
    toAddress: "bc1qplantedtarget",
    sourceAddress: "bc1qplantedsource"
  }
  const orphaned = income({
    terminalId: erc20.id,
    txState: 8,
    stage: "Credited",
    txHash: "ff06",
    index: 2,
    blockHeight: 90,
    blockHash: "h90old",
    orphaned: true
  })
  const unattributed = income({
    terminalId: erc20.id,
    walletTo: "-4",
    txState: 1,
    stage: "Unattributed",
    txHash: "ab07",
    index: 0,
    blockHeight: 104,
    blockHash: "h104"
  })
  const othersIncome = income({
    terminalId: trc20.id,
    walletTo: other,
    txState: 3,
    stage: "AwaitingPartnerInfo",
    txHash: "ac08",
    index: 0,
    blockHeight: 52,
    blockHash: "h52"
  })
  const canceled = income({
    terminalId: trc20.id,
    txState: 16,
    stage: "Canceled",
    txHash: "ad09",
    index: 0,
    blockHeight: 30,
    blockHash: "h30old",
    orphaned: true
  })
  const refundingWithLink = { ...refunding, refundTxId: refund.id }
  const txs = {
    credited,
    awaiting,
    confirming,
    sealed,
    refunding: refundingWithLink,
    refund,
    withdrawal,
    orphaned,
    unattributed,
    othersIncome,
    canceled
  }
  const statements = [
    ...Object.values(worldTerminals).map(terminalSql),
    ...Object.values(worldHeads).map(headSql),
    ...txsSql(Object.values(txs))
  ]
  return { txs, statements }
}
