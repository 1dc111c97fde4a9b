/** The cluster settings read at start (issue #26): RUNNER_ADDRESS, and WORKERS' runner ports. */
import { assert, describe, it } from "@effect/vitest"
import { parseRunnerAddress } from "../../src/platform/Config.ts"
import { runnerPortBase, workerCount } from "../../src/Supervisor.ts"

describe("RUNNER_ADDRESS", () => {
  it("host:port, a name, an IPv4 or a bracketed IPv6 host", () => {
    assert.deepStrictEqual(parseRunnerAddress("10.0.0.7:34431"), { host: "10.0.0.7", port: 34431 })
    assert.deepStrictEqual(parseRunnerAddress(" runner-2.internal:9000 "), { host: "runner-2.internal", port: 9000 })
    assert.deepStrictEqual(parseRunnerAddress("[::1]:34431"), { host: "::1", port: 34431 })
  })
  it("anything else names the variable", () => {
    for (const bad of [
      "34431",
      "host:",
      ":34431",
      "host:0",
      "host:65536",
      "host:34431/x",
      "a b:1",
      "host\u0000:1",
      "::1:34431"
    ])
      assert.match(String(parseRunnerAddress(bad)), /^RUNNER_ADDRESS: must be host:port/, bad)
  })
})

describe("WORKERS as runners", () => {
  it("worker ports from RUNNER_PORT_BASE (default 34431), all of them ports", () => {
    assert.strictEqual(runnerPortBase({}, 4), 34431)
    assert.strictEqual(runnerPortBase({ RUNNER_PORT_BASE: "40000" }, 16), 40000)
    assert.throws(() => runnerPortBase({ RUNNER_PORT_BASE: "65530" }, 8), /RUNNER_PORT_BASE/)
    assert.throws(() => runnerPortBase({ RUNNER_PORT_BASE: "x" }, 2), /RUNNER_PORT_BASE/)
  })
  it("RUNNER_ADDRESS beside WORKERS is refused (each worker has its own)", () => {
    const env = { WORKERS: "2", DATABASE_URL: "postgres://x", RUNNER_ADDRESS: "127.0.0.1:1" }
    assert.throws(() => workerCount(env), /RUNNER_ADDRESS: with WORKERS/)
    assert.strictEqual(workerCount({ ...env, WORKER_INDEX: "2" }), 2)
  })
})
