/** The public health answer, shared by the router's handler and the server's fast path. */
const startedAt = Date.now()
export const version = "0.1.0"

export const publicInfo = () => ({
  status: "ok" as const,
  version,
  serverTimeUTC: new Date().toISOString(),
  uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000)
})

export const envelopeJson = (result: unknown, id: number): string => JSON.stringify({ result, error: null, id })
