/**
 * C15 "Journal and monitoring", the monitoring half: per terminal that had a push (a chain_heads
 * row, planted by SQL while the chain actor is built elsewhere), `/metrics` shows
 * scanner_tip_height, scanner_lag_seconds, scanner_reorgs_total, scanner_deep_reorgs_total and
 * withdrawals_queued labelled `terminal`, read from SQL at scrape time; monitoring_stats lists the
 * same figures under `scanners` with the tip's hash.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  cryptoServiceForFile,
  cryptoWorld,
  headSql,
  plantedTxId,
  txsSql,
  worldHeads,
  worldTerminals
} from "../support/CryptoRows.ts"

const { client, service, plant } = cryptoServiceForFile()

// A plant restarts the embedded service (test/support/CryptoRows.ts): these tests get a hook's time.

/** One Prometheus text scrape: `name{labels}` → value, and the TYPE of each family. */
const scrape = async () => {
  const text = await (await fetch(service().monitoring + "/metrics")).text()
  const series = new Map<string, number>()
  const types = new Map<string, string>()
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line)
    if (type !== null) types.set(type[1], type[2])
    if (line === "" || line.startsWith("#") || line.includes("_bucket{")) continue
    const at = line.lastIndexOf(" ")
    series.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return { series, types }
}

const scannerFamilies = [
  "scanner_tip_height",
  "scanner_lag_seconds",
  "scanner_reorgs_total",
  "scanner_deep_reorgs_total",
  "withdrawals_queued"
]

describe("scanner figures (C15)", () => {
  it("no terminal pushed yet: no scanner series, no scanners in monitoring_stats", async () => {
    const { series } = await scrape()
    for (const key of series.keys())
      assert.isFalse(
        scannerFamilies.some((family) => key.startsWith(family + "{")),
        key
      )
    const stats = await client.priv("GET", "monitoring_stats")
    assert.strictEqual(stats.status, 200)
    assert.deepStrictEqual(stats.body.result.scanners, [])
  })

  it("per pushed terminal, labelled terminal, from SQL at scrape time; the same in monitoring_stats", async () => {
    const holder = await client.walletWithSession("830001")
    const other = await client.walletWithSession("830002")
    await plant(cryptoWorld(holder.id, other.id).statements)
    const { erc20, trc20, btc } = worldTerminals
    const { series, types } = await scrape()
    const at = (family: string, terminal: string) => series.get(`${family}{terminal="${terminal}"}`)
    assert.strictEqual(at("scanner_tip_height", erc20.id), 105)
    assert.strictEqual(at("scanner_tip_height", trc20.id), 60)
    assert.strictEqual(at("scanner_reorgs_total", erc20.id), 2)
    assert.strictEqual(at("scanner_deep_reorgs_total", erc20.id), 1)
    assert.strictEqual(at("scanner_reorgs_total", trc20.id), 0)
    assert.strictEqual(at("scanner_deep_reorgs_total", trc20.id), 0)
    // The world queues a refund on the TRC20 terminal and a withdrawal on Bitcoin, which never pushed.
    assert.strictEqual(at("withdrawals_queued", trc20.id), 1)
    assert.strictEqual(at("withdrawals_queued", erc20.id), 0)
    for (const family of scannerFamilies) assert.isUndefined(at(family, btc.id), `${family}: Bitcoin had no push`)
    const lag = at("scanner_lag_seconds", erc20.id)!
    assert.isAtLeast(lag, 30, "pushed 30 s before planting")
    assert.isBelow(lag, 600)
    assert.isAtLeast(at("scanner_lag_seconds", trc20.id)!, 0)
    assert.deepInclude(Object.fromEntries(types), {
      scanner_tip_height: "gauge",
      scanner_lag_seconds: "gauge",
      scanner_reorgs_total: "counter",
      scanner_deep_reorgs_total: "counter",
      withdrawals_queued: "gauge"
    })

    const result = (await client.priv("GET", "monitoring_stats")).body.result
    const scanners = result.scanners as Array<any>
    assert.deepStrictEqual(
      scanners.map(({ lagSeconds: _lag, ...rest }) => rest),
      [
        { tokenNetwork: erc20.id, tipHeight: 105, tipHash: "h105", reorgs: 2, deepReorgs: 1, queued: 0 },
        { tokenNetwork: trc20.id, tipHeight: 60, tipHash: "h60", reorgs: 0, deepReorgs: 0, queued: 1 }
      ]
    )
    assert.isAtLeast(scanners[0].lagSeconds, lag, "read again, later")
    // The registry's series, as monitoring_stats lists every family, agree with the section.
    const tips = result.series.scanner_tip_height.values as Array<{ labels: { terminal: string }; value: number }>
    assert.deepStrictEqual(tips.map(({ labels, value }) => [labels.terminal, value]).sort(), [
      [erc20.id, 105],
      [trc20.id, 60]
    ])
  }, 240_000)

  it("a later push (a reorg, a new tip) and a newly queued withdrawal show at the next scrape", async () => {
    const holder = await client.walletWithSession("830003")
    const { erc20 } = worldTerminals
    await plant([
      headSql({ ...worldHeads.erc20, tipHeight: 107, tipHash: "h107", reorgs: 3, pushedSecondsAgo: 0 }),
      ...txsSql([
        {
          id: plantedTxId(),
          typeTx: 2,
          txState: 3,
          walletFrom: holder.id,
          walletTo: "-1",
          currency: "USDT",
          amount: "1000000",
          terminalId: erc20.id,
          stage: "Queued",
          toAddress: "0x00000000000000000000000000000000000000b2"
        }
      ])
    ])
    const { series } = await scrape()
    assert.strictEqual(series.get(`scanner_tip_height{terminal="${erc20.id}"}`), 107)
    assert.strictEqual(series.get(`scanner_reorgs_total{terminal="${erc20.id}"}`), 3, "a counter of the SQL total")
    assert.strictEqual(series.get(`scanner_deep_reorgs_total{terminal="${erc20.id}"}`), 1)
    assert.strictEqual(series.get(`withdrawals_queued{terminal="${erc20.id}"}`), 1)
    assert.isBelow(series.get(`scanner_lag_seconds{terminal="${erc20.id}"}`)!, 30)
    // Scraping again counts nothing twice.
    assert.strictEqual((await scrape()).series.get(`scanner_reorgs_total{terminal="${erc20.id}"}`), 3)
  }, 240_000)
})
