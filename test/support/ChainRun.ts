/**
 * What crypto-chain-sim.test.ts drives: one service per seed with an Ethereum Base terminal (C15),
 * a Deposit tariff paying a profit wallet the test can read, wallets with sessions and their derived
 * addresses, then every simulated push sent to `tx_list_push` and checked against ChainModel — the
 * answer, every wallet's lock_in and free, the profit wallet, and the ledger audit — and at the end
 * address_tx_info, the DeepReorg events and monitoring_stats' scanner figures.
 */
import { assert } from "@effect/vitest"
import { makeClient, type TestClient } from "./Client.ts"
import { fromMinor, makeChainModel, toMinor, type ChainModel, type PushOutcome } from "./ChainModel.ts"
import type { SimPush, SimWallet } from "./ChainSim.ts"
import { assertRejected, qs } from "./Fixtures.ts"
import { type RunningService, startService } from "./Service.ts"

/**
 * The account-level xpub (m/44'/60'/0') of the BIP-39 test mnemonic "abandon abandon abandon abandon
 * abandon abandon abandon abandon abandon abandon abandon about" (no passphrase). Precomputed with
 * node:crypto (PBKDF2-HMAC-SHA512 seed, BIP-32 hardened derivation, Base58Check; the same code gives
 * BIP-84's published zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs
 * for m/84'/0'/0'), because @scure/bip32 is not installed on this branch. Once the C15 branch adds
 * @scure/bip32 it may be re-derived there: HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'").publicExtendedKey.
 */
export const XPUB_ETHEREUM_ABANDON =
  "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt"

/** Index 0 of that account (m/44'/60'/0'/0/0), EIP-55: the well-known first address of the mnemonic. */
export const FIRST_ADDRESS_ABANDON = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"

export const CONFIRMATIONS = 3
export const DECIMALS = 18
export const CURRENCY = "ETH"
/** The Deposit tariff (C7): fee = 0.0001 + A × 0.5 / 100 rounded up, at most A (C15). */
export const FEE_FIXED = "0.0001"
export const FEE_PERCENT = "0.5"

export interface ChainWallet extends SimWallet {
  readonly sid: string
}

export interface ChainRun {
  readonly service: RunningService
  readonly client: TestClient
  readonly terminalId: string
  readonly wallets: ReadonlyArray<ChainWallet>
  readonly profit: { readonly id: string; readonly sid: string }
  readonly model: ChainModel
  /** Model Income serial → the service's txId, bound from the push answers. */
  readonly txIds: Map<number, string>
  /** Serials the model ever saw Finished (they must stay 8). */
  readonly finished: Set<number>
}

/** Starts a service with XPUB_ETHEREUM, adds the terminal and the tariff, makes the wallets and their addresses. */
export const startChainRun = async (walletCount: number): Promise<ChainRun> => {
  const service = await startService({ env: { XPUB_ETHEREUM: XPUB_ETHEREUM_ABANDON } })
  const client = makeClient(service)
  const terminal = await client.priv("POST", "add_network", {
    typeNetwork: 2, // Ethereum
    typeContract: 0, // Base
    currencyId: CURRENCY,
    decimals: DECIMALS,
    addressContract: null,
    name: "ethereum-sim",
    networkFee: null,
    flags: 1, // TerminalFlag.Deposit
    defaultHotAddress: null,
    defaultSystemWalletId: null,
    walletGroups: [0],
    confirmations: CONFIRMATIONS
  })
  assert.strictEqual(terminal.status, 200, JSON.stringify(terminal.body))
  const terminalId = String(terminal.body.result.id)
  assert.strictEqual(terminal.body.result.confirmations, CONFIRMATIONS)

  const profit = await client.walletWithSession(client.newClientId())
  await client.setTariffs([
    { txClass: "Deposit", currency: CURRENCY, feeFixed: FEE_FIXED, feePercent: FEE_PERCENT, profitWalletId: profit.id }
  ])

  const wallets: Array<ChainWallet> = []
  for (let i = 0; i < walletCount; i++) {
    const party = await client.walletWithSession(client.newClientId())
    const reply = await client.call("GET", `/core/v1/wallet/create_address?${qs({ token_network: terminalId })}`, {
      sid: party.sid
    })
    assert.strictEqual(reply.status, 200, `create_address: ${JSON.stringify(reply.body)}`)
    const record = reply.body.result
    assert.strictEqual(record.typeAddress, "EOA")
    assert.isNull(record.memo)
    assert.strictEqual(record.typeNetwork, 2)
    assert.match(record.address, /^0x[0-9a-fA-F]{40}$/)
    // The first derived address of the network is index 0 of the xpub.
    if (i === 0) assert.strictEqual(record.address, FIRST_ADDRESS_ABANDON, "m/44'/60'/0'/0/0")
    const again = await client.call("GET", `/core/v1/wallet/create_address?${qs({ token_network: terminalId })}`, {
      sid: party.sid
    })
    assert.strictEqual(again.body.result?.address, record.address, "the wallet's newest address, not a new one")
    wallets.push({ id: party.id, sid: party.sid, address: record.address })
  }
  const model = makeChainModel({
    confirmations: CONFIRMATIONS,
    decimals: DECIMALS,
    addresses: new Map(wallets.map((w) => [w.address.toLowerCase(), w.id])),
    feeFixed: FEE_FIXED,
    feePercent: FEE_PERCENT,
    profitWalletId: profit.id
  })
  return { service, client, terminalId, wallets, profit, model, txIds: new Map(), finished: new Set() }
}

const heights = (xs: ReadonlyArray<unknown>) => xs.map(String).sort((a, b) => Number(a) - Number(b))
/** The service writes balances as JSON numbers of the exact decimal; the model's decimal parses to the same double. */
const asNumber = (minor: bigint) => Number(fromMinor(minor, DECIMALS))
/** An exact decimal string however many trailing zeros the service writes. */
const canonical = (amount: unknown) => fromMinor(toMinor(String(amount), DECIMALS), DECIMALS)

/** Sends one push, checks the answer against the model's, binds new txIds. */
export const pushAndCheckAnswer = async (run: ChainRun, push: SimPush, label: string): Promise<PushOutcome> => {
  const expected = run.model.push(push.block)
  const reply = await run.client.priv("POST", "tx_list_push", { tokenNetwork: run.terminalId, ...push.block })
  if (expected.kind === "refused") {
    const field = expected.code === 10207 ? undefined : expected.field
    assertRejected(reply, 400, expected.code, `${label} (${push.step})`, field)
    return expected
  }
  assert.strictEqual(reply.status, 200, `${label} (${push.step}): ${JSON.stringify(reply.body)}`)
  const answer = reply.body.result
  assert.strictEqual(String(answer.tokenNetwork), run.terminalId, label)
  assert.strictEqual(String(answer.height), String(push.block.height), label)
  assert.strictEqual(answer.hash, push.block.hash, label)
  assert.strictEqual(String(answer.tipHeight), String(expected.tipHeight), `${label}: tipHeight`)
  assert.strictEqual(answer.replayed, expected.replayed, `${label}: replayed`)
  assert.deepStrictEqual(heights(answer.orphaned), heights(expected.orphaned), `${label}: orphaned`)
  assert.strictEqual(answer.items.length, expected.items.length, `${label}: items`)
  const bound = new Set(run.txIds.values())
  for (const [i, want] of expected.items.entries()) {
    const got = answer.items[i]
    const where = `${label}: items[${i}]`
    assert.strictEqual(got.txHash, want.txHash, where)
    assert.strictEqual(got.index, want.index, where)
    assert.strictEqual(got.direction, want.direction, where)
    assert.strictEqual(got.walletId, want.walletId, `${where}.walletId`)
    if (want.income === null) {
      assert.isNull(got.txId, `${where}.txId (an out item binding nothing)`)
    } else if (want.created) {
      assert.isString(got.txId, `${where}.txId`)
      assert.isFalse(bound.has(got.txId), `${where}: a new Income has a new txId`)
      run.txIds.set(want.income, got.txId)
      bound.add(got.txId)
    } else {
      assert.strictEqual(got.txId, run.txIds.get(want.income), `${where}: the Income already recorded`)
    }
  }
  for (const income of run.model.incomes()) if (income.txState === 8) run.finished.add(income.serial)
  return expected
}

/**
 * Every wallet's lock_in and free, and the profit wallet's free, as the model has them (one batch of
 * reads), then the ledger audit. The unattributed wallet −4 and Treasury have no read of their own
 * (get_balance is per session, wallet_info_get has no buckets): the audit's Σ = 0 covers them.
 */
export const checkBalances = async (run: ChainRun, label: string) => {
  const reads = await Promise.all([
    ...run.wallets.map((w) => run.client.bucketsOf(w, CURRENCY)),
    run.client.bucketsOf(run.profit, CURRENCY)
  ])
  for (const [i, w] of run.wallets.entries()) {
    const want = run.model.buckets(w.id)
    assert.strictEqual(reads[i]!.lockIn, asNumber(want.lockIn), `${label}: wallet ${w.id} lock_in`)
    assert.strictEqual(reads[i]!.free, asNumber(want.free), `${label}: wallet ${w.id} free`)
    assert.strictEqual(reads[i]!.lockOut, 0, `${label}: wallet ${w.id} lock_out`)
  }
  const fees = run.model.buckets(run.profit.id)
  assert.strictEqual(reads.at(-1)!.free, asNumber(fees.free), `${label}: the tariff's profit wallet`)
  await run.client.assertLedgerSound(label)
}

/** address_tx_info of every attributed Income, per owner, ≤ 100 txIds a request: state, orphaned flag, amounts. */
export const checkAddressTxInfo = async (run: ChainRun) => {
  for (const wallet of run.wallets) {
    const own = run.model.incomes().filter((i) => i.holder === wallet.id)
    for (let at = 0; at < own.length; at += 100) {
      const page = own.slice(at, at + 100)
      const reply = await run.client.call("POST", "/core/v1/address_tx_info", {
        sid: wallet.sid,
        body: page.map((i) => run.txIds.get(i.serial))
      })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const rows = reply.body.result as Array<any>
      assert.strictEqual(rows.length, page.length, `wallet ${wallet.id}: every own Income answered, in order`)
      for (const [k, income] of page.entries()) {
        const row = rows[k]
        const where = `wallet ${wallet.id} Income ${row.txId}`
        assert.strictEqual(row.txId, run.txIds.get(income.serial), where)
        assert.strictEqual(row.typeTx, 1, where)
        assert.strictEqual(row.txState, income.txState, `${where}: txState`)
        if (run.finished.has(income.serial)) assert.strictEqual(row.txState, 8, `${where}: Finished is never reversed`)
        if (income.txState === 8) assert.strictEqual(row.orphaned, income.orphaned, `${where}: orphaned`)
        if (income.txState === 1) assert.isFalse(row.orphaned, `${where}: orphaned`)
        assert.strictEqual(String(row.tokenNetwork), run.terminalId, where)
        assert.strictEqual(row.currency, CURRENCY, where)
        assert.strictEqual(canonical(row.amount), fromMinor(income.amount, DECIMALS), `${where}: amount`)
        assert.strictEqual(canonical(row.fee), fromMinor(income.fee, DECIMALS), `${where}: fee`)
        assert.strictEqual(row.txHash, income.txHash, where)
        assert.strictEqual(row.index, income.index, where)
        assert.strictEqual(row.requiredConfirmations, CONFIRMATIONS, where)
      }
    }
  }
}

/** One DeepReorg event per deep reorg, with its heights and the Finished Incomes it orphaned; monitoring_stats' scanner. */
export const checkDeepReorgsAndScanner = async (run: ChainRun) => {
  const events = (await run.client.allEvents()).filter(
    (e) => e.kind === "DeepReorg" && String(e.payload?.tokenNetwork) === run.terminalId
  )
  const expected = run.model.deepReorgs()
  assert.strictEqual(events.length, expected.length, "DeepReorg events")
  for (const [k, want] of expected.entries()) {
    const got = events[k]!
    assert.strictEqual(got.walletId, "-1")
    // C15 names forkHeight without defining it: the first orphaned height, or the common parent's.
    assert.include([String(want.forkHeight), String(want.forkHeight - 1)], String(got.payload.forkHeight))
    assert.deepStrictEqual(heights(got.payload.orphanedHeights), heights(want.orphanedHeights), "orphanedHeights")
    assert.sameMembers(
      (got.payload.finishedTxIds as Array<unknown>).map(String),
      want.finished.map((serial) => run.txIds.get(serial)!),
      "finishedTxIds"
    )
  }
  const stats = await run.client.priv("GET", "monitoring_stats")
  assert.strictEqual(stats.status, 200, JSON.stringify(stats.body))
  const scanner = (stats.body.result.scanners as Array<any>).find((s) => String(s.tokenNetwork) === run.terminalId)
  assert.isDefined(scanner, "monitoring_stats.scanners has the terminal")
  assert.strictEqual(String(scanner.tipHeight), String(run.model.tip()), "scanner tipHeight")
  assert.strictEqual(scanner.tipHash, run.model.tipHash(), "scanner tipHash")
  assert.strictEqual(Number(scanner.reorgs), run.model.reorgs(), "scanner reorgs")
  assert.strictEqual(Number(scanner.deepReorgs), run.model.deepReorgs().length, "scanner deepReorgs")
}

/**
 * Blocks refused by validation before the chain rules (C15 "Validated whole before anything moves"),
 * each on top of the current tip so only the broken field is wrong: nothing moves, the tip stays.
 */
export const checkValidationRefusals = async (run: ChainRun) => {
  const tip = run.model.tip()!
  const deposit = (overrides: Record<string, unknown> = {}) => ({
    txHash: "0xvalidation",
    index: 0,
    direction: "in",
    from: null,
    to: run.wallets[0]!.address,
    memo: null,
    amount: "1",
    txId: null,
    ...overrides
  })
  const push = (items: Array<unknown>, tokenNetwork: string = run.terminalId) =>
    run.client.priv("POST", "tx_list_push", {
      tokenNetwork,
      height: tip + 1,
      hash: "validationBlock",
      parentHash: run.model.tipHash(),
      items
    })
  assertRejected(await push([deposit()], "999999999"), 404, 10040, "unknown terminal")
  assertRejected(await push([deposit(), deposit({ amount: "2" })]), 400, 10208, "a (txHash, index) twice")
  assertRejected(
    await push([deposit({ amount: "0." + "0".repeat(DECIMALS) + "1" })]),
    400,
    10021,
    "more decimals than the asset",
    "items[0].amount"
  )
  // EIP-55 fixes the case of every letter: one flipped is a bad checksum.
  const address = run.wallets[0]!.address
  const at = address.slice(2).search(/[a-fA-F]/) + 2
  const flipped = address.slice(0, at) + swapCase(address[at]!) + address.slice(at + 1)
  assertRejected(await push([deposit(), deposit({ index: 1, to: flipped })]), 400, 10204, "bad checksum", "items[1].to")
  assertRejected(await push([deposit({ to: "0x1234" })]), 400, 10204, "not an address", "items[0].to")
  assertRejected(await push([deposit({ from: "T-not-evm" })]), 400, 10204, "from", "items[0].from")
  assertRejected(
    await push(Array.from({ length: 1001 }, (_, index) => deposit({ index }))),
    400,
    10070,
    "more than 1000 items"
  )
  assertRejected(await push([deposit({ amount: "0" })]), 400, 10001, "amount not > 0")
  assertRejected(await push([deposit({ direction: "sideways" })]), 400, 10001, "direction")
  const stats = await run.client.priv("GET", "monitoring_stats")
  const scanner = (stats.body.result.scanners as Array<any>).find((s) => String(s.tokenNetwork) === run.terminalId)
  assert.strictEqual(String(scanner?.tipHeight), String(tip), "the tip did not move")
  await checkBalances(run, "after validation refusals")
}

const swapCase = (c: string) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())
