/**
 * Reads of create_withdraw and of a crypto transaction's cancellation (CONTRACT C15 "Withdrawals"):
 * a used client nonce, the wallet's derived address by its key, and a crypto transaction with its
 * on-chain record. (The newest address and the technical amount are sql/AddressRepo.ts's.)
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirst, Int, Int8, MinorUnits, Nullable, record, Text } from "./Decoding.ts"

/** A client nonce already consumed by a transaction the wallet sent (10130 before any other check moves). */
export const nonceUsed = (walletId: string, clientNonce: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT 1 AS one FROM transactions WHERE wallet_from = ${walletId} AND client_nonce = ${clientNonce} LIMIT 1`,
      (rows) => rows.length > 0
    )
  )

/** A wallet's derived address on a network (its own, not a payment order's). */
export const WalletAddress = record({ address: Text, derivationIndex: Int })
export type WalletAddress = typeof WalletAddress.Type
const firstAddress = decodeFirst(WalletAddress)

/** The wallet's derived address whose key is `addressKey` on the network, if it is the wallet's. */
export const walletAddressByKey = (walletId: string, typeNetwork: number, addressKey: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT address, derivation_index FROM crypto_addresses
        WHERE wallet_id = ${walletId} AND type_network = ${typeNetwork} AND address_key = ${addressKey}
          AND derivation_index IS NOT NULL AND purpose = 0
        LIMIT 1`,
      firstAddress
    )
  )

/** A crypto transaction with its on-chain record: the chain actor's record (sql/ChainRepo.ts). */
export { type CryptoTx, cryptoTxById } from "./ChainRepo.ts"

/** Whether a transaction has an on-chain record (cancel_tx routes it to the withdrawal path). */
export const isCryptoTx = (id: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT 1 AS one FROM crypto_txs WHERE tx_id = ${id}`, (rows) => rows.length > 0)
  )
