/**
 * How an actor answers a failure it did not type (C19 §7): a database error inside a handler (a
 * refused value, a lost connection, a failed commit the ledger writer cannot classify) ends that one
 * message with a defect, answered at once (HTTP 500 10500), and the actor keeps serving the next
 * messages. Effect's cluster default instead treats any defect as fatal: it restarts the entity and
 * replays the same message, which fails the same way, forever, while the caller never hears back.
 *
 * Actors whose in-memory state is only a cache of SQL (wallet, code, payment order, investment) take
 * these options; the wallet drops its cached balances after any failed message. The room and chain
 * actors keep the default on purpose: their state (an order book, a chain tip) runs ahead of SQL, so
 * a failed commit must rebuild them from SQL (docs/SECURITY.md §7, "Actor failures").
 */
export const answerDefects = { disableFatalDefects: true } as const
