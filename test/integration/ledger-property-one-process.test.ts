/**
 * A model-based test of the ledger over real HTTP against the real service (ARCHITECTURE "The
 * ledger", CONTRACT C6/C7): a seeded random stream of operations among ten wallets in two
 * currencies — treasury credits and debits, two-step transfers (step one, then confirm, cancel, a
 * wrong code, or left pending; own-wallet transfers too), debt charges and their replays, under
 * random tariffs — runs in batches of concurrent requests. A naive in-test model applies the same
 * operations given the service's answers; after every batch the operator audit must show Σ = 0 per
 * currency and no negative user bucket, every wallet's free and lock_out must equal the model's,
 * every fee must equal the tariff's, and every refusal or partial debt charge must be justified by
 * the balances the concurrent batch could have produced.
 */
import { assert, describe, it } from "@effect/vitest"
import { serviceForFile } from "../support/Fixtures.ts"
import { assertCoverage, batchCount, runAll } from "../support/LedgerProperty.ts"
import { seed } from "../support/LedgerPropertyModel.ts"

const { client } = serviceForFile()

describe("the ledger against a naive model (seeded, concurrent batches)", () => {
  it(`one process: ${seed}`, async () => {
    const { operations, seen } = await runAll(client, [client], seed, batchCount)
    assert.isAbove(operations, 300)
    assertCoverage(seen)
  }, 120_000)
})
