/**
 * The one reader of a failed statement's PostgreSQL SQLSTATE (23505 unique violation, 23514 check
 * violation, ledger_commit's own LC409 / LC422 / LC461) and of the server's message. sql-pg's SqlError
 * carries the server's error as its cause (an Effect failure may wrap it once more), so the reader walks a
 * few causes; a driver that keeps only the server's message is read by the two states it names.
 */

/** A cause chain's links, the failure first (bounded: a cyclic chain ends). */
const chain = (error: unknown): Array<Record<string, unknown>> => {
  const links: Array<Record<string, unknown>> = []
  let current: unknown = error
  for (let depth = 0; depth < 6 && current !== null && typeof current === "object"; depth++) {
    const link = current as Record<string, unknown>
    links.push(link)
    current = link.cause ?? link.reason
  }
  return links
}

/** The SQLSTATE behind a failure, if any. */
export const sqlState = (error: unknown): string | undefined => {
  for (const link of chain(error)) {
    if (typeof link.code === "string" && /^[0-9A-Z]{5}$/.test(link.code)) return link.code
    if (typeof link.sqlState === "string") return link.sqlState
  }
  // A driver that kept only the server's message: its two constraint messages name their states.
  const text = chain(error).flatMap((link) => (typeof link.message === "string" ? [link.message] : []))
  if (text.some((m) => /duplicate key value violates unique constraint/.test(m))) return "23505"
  if (text.some((m) => /violates check constraint/.test(m))) return "23514"
  return undefined
}

/** The server's message behind a failure (the innermost cause that has one), else the failure as text. */
export const sqlMessage = (error: unknown): string => {
  const messages = chain(error).flatMap((link) => (typeof link.message === "string" ? [link.message] : []))
  return messages.length > 0 ? messages[messages.length - 1] : String(error)
}

export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === "23505"
