/**
 * Measures the public, unauthenticated `GET /core/v1/get_info` (no database work: the router,
 * the envelope and JSON encoding) against the bare node:http anchor, in req/s and server CPU
 * µs/request; the target is at least 0.6× the anchor's req/s.
 */
import { getBenchmark } from "../support/HttpGet.ts"

export const getInfo = getBenchmark({
  name: "get_info",
  summary: "public GET /core/v1/get_info vs a bare node:http server",
  targetRatio: 0.6,
  route: async () => ({ path: "/core/v1/get_info" })
})
