/** PostgreSQL array literals for multi-row `unnest` statements (NULL-aware, quoted). */
export const textArray = (values: ReadonlyArray<string | null>): string =>
  "{" + values.map((v) => (v === null ? "NULL" : `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)).join(",") + "}"

export const numberArray = (values: ReadonlyArray<bigint | number | null>): string =>
  "{" + values.map((v) => (v === null ? "NULL" : String(v))).join(",") + "}"

export const byteaArray = (values: ReadonlyArray<Uint8Array | null>): string =>
  textArray(values.map((v) => (v === null ? null : "\\x" + Buffer.from(v).toString("hex"))))
