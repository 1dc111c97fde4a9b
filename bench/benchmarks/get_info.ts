/**
 * Measures the public, unauthenticated `GET /core/v1/get_info` (no database work: the router,
 * the envelope and JSON encoding) against the bare node:http anchor, in req/s and server CPU
 * µs/request; the target is at least 0.6× the anchor's req/s.
 */
import type { Benchmark } from "../support/Harness.ts"

export const getInfo: Benchmark = {
  name: "get_info",
  summary: "public GET /core/v1/get_info vs a bare node:http server",
  targetRatio: 0.6,
  prepare: async (ours) => ours.target("/core/v1/get_info")
}
