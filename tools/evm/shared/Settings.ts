/**
 * Settings by environment, each described once so `--help` lists exactly what is read. A required
 * setting that is unset, or a number that does not parse, stops the tool with a message naming it.
 */
export interface Setting {
  readonly name: string
  readonly meaning: string
  /** undefined: required. */
  readonly fallback?: string
  /** Printed instead of the value in logs (keys, mnemonics). */
  readonly secret?: boolean
}

export class SettingError extends Error {}

/** The `--help` text: a title, then one line per setting with its default. */
export const helpText = (title: string, settings: ReadonlyArray<Setting>): string => {
  const width = Math.max(...settings.map((s) => s.name.length))
  const lines = settings.map(
    (s) =>
      `  ${s.name.padEnd(width)}  ${s.meaning}${s.fallback === undefined ? " (required)" : s.fallback === "" ? "" : ` (default ${s.fallback})`}`
  )
  return `${title}\n\nSettings (environment variables):\n${lines.join("\n")}\n`
}

/** Reads the settings from `env`: name → value (defaults applied). */
export const readSettings = (
  settings: ReadonlyArray<Setting>,
  env: Record<string, string | undefined>
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const s of settings) {
    const raw = env[s.name]
    const value = raw === undefined || raw.trim() === "" ? s.fallback : raw.trim()
    if (value === undefined) throw new SettingError(`${s.name} is required (see --help)`)
    out[s.name] = value
  }
  return out
}

/** A whole number within bounds, or a SettingError naming the setting. */
export const intSetting = (values: Record<string, string>, name: string, min: number, max: number): number => {
  const text = values[name]
  const n = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new SettingError(`${name}: expected a whole number ${min}..${max}, got "${text}"`)
  return n
}

/** Prints the help and exits 0 when `--help` or `-h` is among the arguments. */
export const exitOnHelp = (argv: ReadonlyArray<string>, text: string): void => {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(text)
    process.exit(0)
  }
}
