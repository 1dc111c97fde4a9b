/** Recipient lookups for internal_transfer (CONTRACT C12). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { firstWalletOf, walletColumns } from "./WalletRepo.ts"

const columns = walletColumns
  .split(", ")
  .map((column) => "w." + column)
  .join(", ")

/** The IsDefault wallet of the client identified by a client-level identifier. */
export const defaultWalletByClientField = (field: "crm_id" | "phone" | "messenger_id", value: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM clients c JOIN wallets w ON w.client_id = c.id
      WHERE c.${sql.literal(field)} = ${value} AND (w.flags & 16) <> 0`,
      firstWalletOf
    )
  )
