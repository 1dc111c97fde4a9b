/** A server under measurement: where to send load, how, which process to charge CPU to, how to stop it. */
export interface Target {
  /** Shown in the report's first column. */
  readonly name: string
  /** The full URL every request goes to (GET). */
  readonly url: string
  /** Extra request headers, e.g. the session cookie. */
  readonly headers: Record<string, string>
  /** The server's own process (a node process, not a shell or npm wrapper). */
  readonly pid: number
  readonly stop: () => Promise<void>
}
