/**
 * Decoding what another system sent (a webhook body, a partner's answer) with its `schema/` shape: JSON
 * text first, then the shape; a failure is one line naming the field ("data.text: a string of 1 to 4000
 * characters", "body: not JSON"), for a 10001 or a 10177 message. Never the input itself.
 */
import { Result, Schema, SchemaIssue } from "effect"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * The first issue of a failed decode as "field.path: message". A body's fields are named bare ("eventId"),
 * the body itself "body"; a nested value's under its own root ("data.from", "result.state").
 */
export const describeIssue = (issue: SchemaIssue.Issue, root?: string): string => {
  const [first] = formatter(issue).issues
  if (first === undefined) return `${root ?? "body"}: invalid`
  const path = (first.path ?? [])
    .map((key) => {
      const segment = typeof key === "object" && key !== null && "key" in key ? key.key : key
      return typeof segment === "number" ? `[${segment}]` : `.${String(segment)}`
    })
    .join("")
  const field = root !== undefined ? root + path : path === "" ? "body" : path.slice(path.startsWith(".") ? 1 : 0)
  return `${field}: ${first.message}`.slice(0, 300)
}

/** A value decoded with `schema`; the failure names the field. */
export const decodeValue =
  <S extends Schema.ConstraintDecoder<unknown>>(schema: S, root?: string) =>
  (value: unknown): Result.Result<S["Type"], string> =>
    Result.mapError(Schema.decodeUnknownResult(schema)(value), (error) => describeIssue(error.issue, root))

/** A JSON text decoded with `schema`; the failure names the field (or says it is not JSON). */
export const decodeJson =
  <S extends Schema.ConstraintDecoder<unknown>>(schema: S, root?: string) =>
  (text: string): Result.Result<S["Type"], string> => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return Result.fail(`${root ?? "body"}: not JSON`)
    }
    return decodeValue(schema, root)(value)
  }
