/**
 * What the wallet test files (wallets-private, wallets-session) share: the file's service, and
 * helpers of its client for update_wallet, wallet_info_get and the owner's IsDefault wallets.
 */
import { assert } from "@effect/vitest"
import { serviceForFile, WalletFlag } from "./Fixtures.ts"

const { IsDefault } = WalletFlag

/** Starts the file's service; its client, a fresh client id, and the wallet helpers of that client. */
export const walletsFile = () => {
  const { service, client } = serviceForFile()
  const newClientId = client.newClientId

  const update = (body: Record<string, unknown>) => client.priv("POST", "update_wallet", body)
  const infoOf = async (id: string) => {
    const reply = await client.priv("GET", `wallet_info_get?wallet_id=${id}`)
    assert.strictEqual(reply.status, 200)
    return reply.body.result
  }
  const defaultsOf = async (clientId: string): Promise<Array<string>> => {
    const reply = await client.priv("GET", `get_wallets?client_id=${clientId}`)
    return (reply.body.result as Array<any>).filter((w) => (w.flags & IsDefault) !== 0).map((w) => w.id)
  }

  return { service, client, newClientId, update, infoOf, defaultsOf }
}
