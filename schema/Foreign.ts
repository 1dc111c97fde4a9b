/**
 * Field shapes of what other systems send us (the acquirer's webhook, a partner's webhook and answers):
 * each decoded with Schema before anything is read from it, a failure naming the field.
 */
import { Schema } from "effect"

/** A text field: 1 to `max` characters. */
export const ForeignText = (max: number) =>
  Schema.String.check(
    Schema.isMinLength(1, { message: `a string of 1 to ${max} characters` }),
    Schema.isMaxLength(max, { message: `a string of 1 to ${max} characters` })
  )

/** An ISO 8601 date-time with its offset, as C16's events carry them (a Date's toISOString()). */
export const IsoDateTime = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})$/.test(
        value
      ) && Number.isFinite(Date.parse(value)),
    { message: "must be an ISO 8601 date-time" }
  )
)

/** A non-negative decimal amount as text (C16 amounts: "10.6"), read exactly later (no floats). */
export const DecimalText = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,40}(\.[0-9]{1,40})?$/, { message: "a decimal string such as 10.6" })
)

/** A C16 id as text (an Int64 in decimal). */
export const IdText = Schema.String.check(Schema.isPattern(/^[0-9]{1,19}$/, { message: "a decimal id" }))
