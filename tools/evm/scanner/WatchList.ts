/**
 * The scanner's watch list of its terminal (C15 address_block_list): read once from the start, then
 * only what was allocated after the last cursor, before every round of blocks. EVM addresses compare
 * case-insensitively, so the set holds lower-case keys.
 */
import type { ServiceClient } from "../shared/ServiceClient.ts"

interface WatchItem {
  readonly id: string
  readonly address: string
}

export interface WatchList {
  /** Reads what was added since the last refresh; answers how many. */
  readonly refresh: () => Promise<number>
  readonly has: (address: string | null | undefined) => boolean
  readonly size: () => number
}

const pageLimit = 1000

export const makeWatchList = (service: ServiceClient, tokenNetwork: string): WatchList => {
  const keys = new Set<string>()
  let cursor = "0"
  return {
    refresh: async () => {
      let added = 0
      for (;;) {
        const page = await service.get<ReadonlyArray<WatchItem>>("address_block_list", {
          tokenNetwork,
          cursor,
          limit: pageLimit
        })
        for (const item of page.result) {
          const key = item.address.toLowerCase()
          if (!keys.has(key)) added++
          keys.add(key)
        }
        cursor = page.cursor ?? page.result.at(-1)?.id ?? cursor
        if (page.result.length < pageLimit) return added
      }
    },
    has: (address) => address != null && keys.has(address.toLowerCase()),
    size: () => keys.size
  }
}
