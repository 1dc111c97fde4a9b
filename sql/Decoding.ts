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
 */
import { Schema, SchemaGetter } from "effect"

/** bigint / bigserial (int8): the driver already returns a bigint. Ids, ticks, counts. */
export const Int8 = Schema.BigInt
/** smallint / integer: a JS number. Small enums, flags, counters. */
export const Int = Schema.Number
export const Text = Schema.String
export const Bool = Schema.Boolean
/** timestamptz: the driver returns a Date. */
export const Timestamp = Schema.Date
export const Bytes = Schema.Uint8Array

/**
 * NUMERIC(78,0) money in minor units, selected as `col::text`: exact as a bigint. The driver hands
 * NUMERIC over as text; nothing on the way passes through a float.
 */
export const MinorUnits = Schema.String.pipe(
  Schema.decodeTo(Schema.BigInt, {
    decode: SchemaGetter.transform((text: string) => BigInt(text)),
    encode: SchemaGetter.transform((value: bigint) => value.toString())
  })
)

/**
 * A NUMERIC with a fraction (rates, percentages, network fees): kept as its canonical decimal text,
 * which is exact; arithmetic on it goes through bignumber.js at the caller.
 */
export const DecimalText = Schema.String

/** Any JSON the driver parsed (jsonb). */
export const Json = Schema.Unknown

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase())

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
  return Schema.Struct(fields).pipe(Schema.encodeKeys(mapping as any)) as unknown as Schema.Decoder<Schema.Struct.Type<Fields>>
}

/** Every row, decoded by a parser compiled once. */
export const decodeAll = <A>(schema: Schema.Decoder<A>): ((rows: ReadonlyArray<unknown>) => ReadonlyArray<A>) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (rows) => {
    const out = new Array<A>(rows.length)
    for (let i = 0; i < rows.length; i++) out[i] = decode(rows[i])
    return out
  }
}

/** The first row decoded, or undefined when there is none. */
export const decodeFirst = <A>(schema: Schema.Decoder<A>): ((rows: ReadonlyArray<unknown>) => A | undefined) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (rows) => (rows.length === 0 ? undefined : decode(rows[0]))
}

/** One row that the statement always returns (nextval, count, RETURNING of a known row). */
export const decodeOne = <A>(schema: Schema.Decoder<A>): ((rows: ReadonlyArray<unknown>) => A) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (rows) => {
    if (rows.length === 0) throw new Error("invariant: the statement returned no row")
    return decode(rows[0])
  }
}
