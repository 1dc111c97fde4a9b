/**
 * Repositories hand out camelCase typed records, never the driver's snake_case rows. Each
 * repository declares its record as a Schema struct of the codecs below (named after what the
 * driver returns for the column's type) and builds its decoder once, at module load:
 *
 *   const Balance = record({ currency: Text, free: MinorUnits, lockOut: MinorUnits })
 *   const balances = decodeAll(Balance)   // rows → ReadonlyArray<typeof Balance.Type>
 *
 * The record's keys are the columns' names in camelCase (`lockOut` reads `lock_out`). A row that
 * does not match its schema is a broken invariant (the repository's SQL and its record disagree),
 * so decoders throw and the failure surfaces as a defect.
 *
 * Speed: the Schema is the declaration and the judge, but running its general parser costs a few
 * µs per row, which a history page of hundreds of rows would feel. So each codec here also carries
 * a plain check-and-convert function, and a record made only of them decodes a row in one pass of
 * those; any row they refuse goes to the Schema's own decoder, which names what is wrong.
 */
import { Schema } from "effect"

const Refused: unique symbol = Symbol("Refused")
type Fast = (value: unknown) => unknown

const fastOf = new WeakMap<object, Fast>()
const withFast = <S extends Schema.Top>(schema: S, fast: Fast): S => {
  fastOf.set(schema, fast)
  return schema
}

/** bigint / bigserial (int8): the driver already returns a bigint. Ids, ticks, counts. */
export const Int8 = withFast(Schema.BigInt, (u) => (typeof u === "bigint" ? u : Refused))
/** smallint / integer: a JS number. Small enums, flags, counters. */
export const Int = withFast(Schema.Number, (u) => (typeof u === "number" ? u : Refused))
export const Text = withFast(Schema.String, (u) => (typeof u === "string" ? u : Refused))
export const Bool = withFast(Schema.Boolean, (u) => (typeof u === "boolean" ? u : Refused))
/** timestamptz: the driver returns a Date. */
export const Timestamp = withFast(Schema.Date, (u) => (u instanceof Date ? u : Refused))
export const Bytes = withFast(Schema.Uint8Array, (u) => (u instanceof Uint8Array ? u : Refused))
/** Any JSON the driver parsed (jsonb). */
export const Json = withFast(Schema.Unknown, (u) => (u === undefined ? Refused : u))

const integerText = /^-?\d+$/

/**
 * NUMERIC(78,0) money in minor units, selected as `col::text`: exact as a bigint. The driver hands
 * NUMERIC over as text; nothing on the way passes through a float.
 */
export const MinorUnits = withFast(Schema.BigIntFromString, (u) =>
  typeof u === "string" && integerText.test(u) ? BigInt(u) : Refused
)

/**
 * A NUMERIC with a fraction (rates, percentages, network fees): kept as its canonical decimal text,
 * which is exact; arithmetic on it goes through bignumber.js at the caller.
 */
export const DecimalText = Text

/** A column that may be NULL. */
export const Nullable = <S extends Schema.Top>(schema: S) => {
  const fast = fastOf.get(schema)
  const nullable = Schema.NullOr(schema)
  return fast === undefined ? nullable : withFast(nullable, (u) => (u === null ? null : fast(u)))
}

/** A text column holding one of a few names. */
export const OneOf = <const L extends ReadonlyArray<string>>(literals: L) => {
  const allowed = new Set<unknown>(literals)
  return withFast(Schema.Literals(literals), (u) => (allowed.has(u) ? u : Refused))
}

/** An array column (integer[], text[], …) of one codec. */
export const ArrayOf = <S extends Schema.Top>(schema: S) => {
  const fast = fastOf.get(schema)
  const array = Schema.Array(schema)
  return fast === undefined
    ? array
    : withFast(array, (u) => {
        if (!Array.isArray(u)) return Refused
        const out = new Array(u.length)
        for (let i = 0; i < u.length; i++) {
          const value = fast(u[i])
          if (value === Refused) return Refused
          out[i] = value
        }
        return out
      })
}

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase())

const fastRecords = new WeakMap<object, Fast>()

/**
 * A struct whose encoded side has the snake_case column names of its camelCase keys. Typed as a
 * decoder from unknown: records are only ever read from rows, never written back through it.
 */
export const record = <const Fields extends Schema.Struct.Fields>(fields: Fields) => {
  const mapping: Record<string, string> = {}
  for (const key of Object.keys(fields)) {
    const column = snake(key)
    if (column !== key) mapping[key] = column
  }
  const schema = Schema.Struct(fields).pipe(Schema.encodeKeys(mapping as any)) as unknown as Schema.Decoder<
    Schema.Struct.Type<Fields>
  >
  const plan = Object.keys(fields).map((key) => ({ key, column: snake(key), fast: fastOf.get(fields[key]) }))
  if (plan.every((step) => step.fast !== undefined)) {
    fastRecords.set(schema, (row) => {
      if (typeof row !== "object" || row === null) return Refused
      const out: Record<string, unknown> = {}
      for (const step of plan) {
        const value = step.fast!((row as Record<string, unknown>)[step.column])
        if (value === Refused) return Refused
        out[step.key] = value
      }
      return out
    })
  }
  return schema
}

/** One row to its record: the fast pass when the record has one, the Schema's decoder otherwise and for any row it refuses. */
export const decoder = <A>(schema: Schema.Decoder<A>): ((row: unknown) => A) => {
  const slow = Schema.decodeUnknownSync(schema)
  const fast = fastRecords.get(schema)
  if (fast === undefined) return slow
  return (row) => {
    const value = fast(row)
    return value === Refused ? slow(row) : (value as A)
  }
}

/** Every row, decoded. */
export const decodeAll = <A>(schema: Schema.Decoder<A>): ((rows: ReadonlyArray<unknown>) => ReadonlyArray<A>) => {
  const decode = decoder(schema)
  return (rows) => {
    const out = new Array<A>(rows.length)
    for (let i = 0; i < rows.length; i++) out[i] = decode(rows[i])
    return out
  }
}

/** The first row decoded, or undefined when there is none. */
export const decodeFirst = <A>(schema: Schema.Decoder<A>): ((rows: ReadonlyArray<unknown>) => A | undefined) => {
  const decode = decoder(schema)
  return (rows) => (rows.length === 0 ? undefined : decode(rows[0]))
}

/** One row that the statement always returns (nextval, count, RETURNING of a known row). */
export const decodeOne = <A>(schema: Schema.Decoder<A>): ((rows: ReadonlyArray<unknown>) => A) => {
  const decode = decoder(schema)
  return (rows) => {
    if (rows.length === 0) throw new Error("invariant: the statement returned no row")
    return decode(rows[0])
  }
}

/** Whether a record decodes through the fast pass (every field a codec of this module). */
export const hasFastPath = (schema: Schema.Decoder<unknown>): boolean => fastRecords.has(schema)
