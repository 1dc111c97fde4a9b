/**
 * CPU time a process has used so far (user + system, all its threads), read from
 * /proc/<pid>/stat, in microseconds. Linux only; the clock-tick size comes from `getconf CLK_TCK`.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"

let ticksPerSecond: number | undefined

const clockTicks = (): number => {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/** The fields of /proc/<pid>/stat after the command name (field 3 is index 0). */
const statFields = (pid: number | string): Array<string> => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // The command name (field 2) is in parentheses and may hold spaces: split after its closing one.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
}

/** `pid` and every process descending from it (a service under WORKERS is a primary with its workers). */
export const processTree = (pid: number): Array<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue
    try {
      const parent = Number(statFields(entry)[1])
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
    } catch {
      /* the process ended meanwhile */
    }
  }
  const tree = [pid]
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []))
  return tree
}

/** User and system (kernel) CPU time so far, in microseconds. */
export const cpuSplitMicros = (pid: number): { readonly user: number; readonly system: number } => {
  const fields = statFields(pid)
  // Fields 14 (utime) and 15 (stime) of the whole line are 12 and 13 here.
  return {
    user: (Number(fields[11]) * 1_000_000) / clockTicks(),
    system: (Number(fields[12]) * 1_000_000) / clockTicks()
  }
}

/** The same summed over `pid` and its descendants (the service's workers). */
export const treeCpuSplitMicros = (pid: number): { readonly user: number; readonly system: number } => {
  let user = 0,
    system = 0
  for (const member of processTree(pid)) {
    try {
      const split = cpuSplitMicros(member)
      user += split.user
      system += split.system
    } catch {
      /* the process ended meanwhile */
    }
  }
  return { user, system }
}

export const cpuMicros = (pid: number): number => {
  const { user, system } = cpuSplitMicros(pid)
  return user + system
}

export const treeCpuMicros = (pid: number): number => {
  const { user, system } = treeCpuSplitMicros(pid)
  return user + system
}

/** CPU so far of every process whose command name is `comm` (e.g. the PostgreSQL server's "postgres" backends), by pid. */
export const processesCpuMicros = (comm: string): Map<number, number> => {
  const result = new Map<number, number>()
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === comm)
        result.set(Number(entry), cpuMicros(Number(entry)))
    } catch {
      /* the process ended meanwhile */
    }
  }
  return result
}
