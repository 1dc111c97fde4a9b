/** Recipient lookups for internal_transfer (CONTRACT C12). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { WalletRow } from "./WalletRepo.ts"

const columns = "w.id, w.client_id, w.project, w.wallet_group, w.flags, w.name, w.sort_order, w.max_addr_count, w.address, w.timetick_update"

/** The IsDefault wallet of the client identified by a client-level identifier. */
export const defaultWalletByClientField = (field: "crm_id" | "phone" | "messenger_id", value: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<WalletRow>`SELECT ${sql.literal(columns)} FROM clients c JOIN wallets w ON w.client_id = c.id
      WHERE c.${sql.literal(field)} = ${value} AND (w.flags & 16) <> 0`, (rows) => rows[0]))
