/**
 * What the signer signed, kept in SIGNER_STATE_DIR (C19 §10) so a restart re-reports and never
 * re-sends: one file per txId, written (to a temporary name, then renamed) before the transaction
 * is broadcast. A file names the signed transaction, so resending it after a crash can only land
 * that same transaction (same nonce, same hash). Nonces per source address are taken under a lock
 * directory in the same folder, so signers of several terminals sharing the hot key never hand out
 * one nonce twice.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { sleep } from "../shared/Backoff.ts"

export interface SignedTx {
  readonly txId: string
  readonly tokenNetwork: string
  readonly from: string
  readonly nonce: number
  readonly hash: string
  readonly raw: string
  /** Set once the service took the report (broadcast), or refused it because the item was settled. */
  readonly reported: boolean
  /** Set when the node refused the transaction for good and the failure was reported. */
  readonly failed?: string
}

/** A lock older than this was left by a signer that died holding it. */
const staleLockMs = 30_000

export interface SignedStore {
  readonly get: (txId: string) => SignedTx | undefined
  readonly put: (tx: SignedTx) => void
  /** The highest nonce this folder recorded for an address (any terminal), or −1. */
  readonly lastNonce: (from: string) => number
  /** Runs `body` holding the address's nonce lock. */
  readonly withNonceLock: <T>(from: string, body: () => Promise<T>) => Promise<T>
}

export const makeSignedStore = (dir: string): SignedStore => {
  mkdirSync(dir, { recursive: true })
  const fileOf = (txId: string) => join(dir, `tx-${txId}.json`)
  const all = (): Array<SignedTx> =>
    readdirSync(dir)
      .filter((f) => /^tx-\d+\.json$/.test(f))
      .flatMap((f) => {
        try {
          return [JSON.parse(readFileSync(join(dir, f), "utf8")) as SignedTx]
        } catch {
          return []
        }
      })
  return {
    get: (txId) => {
      try {
        return JSON.parse(readFileSync(fileOf(txId), "utf8")) as SignedTx
      } catch {
        return undefined
      }
    },
    put: (tx) => {
      const temporary = `${fileOf(tx.txId)}.${process.pid}.tmp`
      writeFileSync(temporary, JSON.stringify(tx, null, 2) + "\n", { flush: true })
      renameSync(temporary, fileOf(tx.txId))
    },
    lastNonce: (from) =>
      Math.max(
        -1,
        ...all()
          .filter((t) => t.from.toLowerCase() === from.toLowerCase() && t.failed === undefined)
          .map((t) => t.nonce)
      ),
    withNonceLock: async (from, body) => {
      const lock = join(dir, `nonce-${from.toLowerCase()}.lock`)
      for (;;) {
        try {
          mkdirSync(lock)
          break
        } catch {
          try {
            if (Date.now() - statSync(lock).mtimeMs > staleLockMs) rmdirSync(lock)
          } catch {
            /* released meanwhile */
          }
          await sleep(50)
        }
      }
      try {
        return await body()
      } finally {
        rmdirSync(lock)
      }
    }
  }
}
