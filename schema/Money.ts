/**
 * Money at the edge. Requests carry amounts as decimal strings or JSON numbers (CONTRACT C5);
 * inside the service an amount is a bigint count of the currency's minor units. Conversion to
 * and from minor units needs the currency's decimals, so it happens in the service, which
 * names the field when an amount has more decimals than its currency allows.
 */
import { BigNumber } from "bignumber.js"
import { Schema, SchemaGetter } from "effect"

/** Integer digits allowed in any amount: far above any real balance, far below NUMERIC(78). */
export const amountIntegerDigitsMax = 24
/** Fraction digits accepted syntactically; the currency's own decimals are checked later. */
export const amountFractionDigitsMax = 18

const decimalPattern = new RegExp(`^[0-9]{1,${amountIntegerDigitsMax}}(\\.[0-9]{1,${amountFractionDigitsMax}})?$`)

/** A JSON number holds about 15 significant decimal digits; past that the client's digits are already lost. */
export const jsonNumberDigitsMax = 15
const impreciseNumber = "imprecise-json-number"

const significantDigits = (text: string): number =>
  text
    .replace(/^[-0.]+/, "")
    .replace(/\./, "")
    .replace(/0+$/, "").length

const toDecimalText = (input: string | number): string => {
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return "NaN"
    const text = new BigNumber(input).toFixed()
    // 12345678901234567891 parses to 12345678901234567000: refuse rather than post a different amount.
    return significantDigits(text) > jsonNumberDigitsMax ? impreciseNumber : text
  }
  return input.trim()
}

const positiveDecimal = Schema.makeFilter<string>(
  (text) => {
    if (text === impreciseNumber) {
      return `a JSON number with more than ${jsonNumberDigitsMax} significant digits is not exact; send the amount as a decimal string`
    }
    if (!decimalPattern.test(text)) {
      return `must be a positive decimal with at most ${amountIntegerDigitsMax} integer and ${amountFractionDigitsMax} fraction digits`
    }
    return /[1-9]/.test(text) || "must be greater than 0"
  },
  { expected: "a positive decimal amount" }
)

/** A positive amount as a canonical decimal string (no exponent, no sign). */
export const PositiveAmount = Schema.Union([Schema.String, Schema.Number])
  .pipe(
    Schema.decodeTo(Schema.String.check(positiveDecimal), {
      decode: SchemaGetter.transform(toDecimalText),
      encode: SchemaGetter.transform((text: string) => text)
    })
  )
  .annotate({
    description:
      "Positive decimal amount: a decimal string, or a JSON number of at most 15 significant digits " +
      "(beyond that a float is not exact)",
    examples: ["12.5"]
  })

/**
 * The same amount as a query parameter: always text, kept as text. (A number member would claim
 * "1.123456789012345678" first and hand on a rounded float.)
 */
export const PositiveAmountParam = Schema.String.pipe(
  Schema.decodeTo(Schema.String.check(positiveDecimal), {
    decode: SchemaGetter.transform((text: string) => text.trim()),
    encode: SchemaGetter.transform((text: string) => text)
  })
).annotate({ description: "Positive decimal amount", examples: ["12.5"] })

/**
 * Other decimal inputs (fees, rates, network fees): a decimal string or a JSON number of at most
 * 15 significant digits, kept as canonical text; zero allowed or not.
 */
export const decimalInput = (options: {
  readonly allowZero: boolean
  readonly fractionDigitsMax: number
  readonly description: string
}) => {
  const pattern = new RegExp(`^[0-9]{1,${amountIntegerDigitsMax}}(\\.[0-9]{1,${options.fractionDigitsMax}})?$`)
  const check = Schema.makeFilter<string>((text) => {
    if (text === impreciseNumber)
      return `a JSON number with more than ${jsonNumberDigitsMax} significant digits is not exact; send a decimal string`
    if (!pattern.test(text))
      return `must be a ${options.allowZero ? "non-negative" : "positive"} decimal with at most ${options.fractionDigitsMax} fraction digits`
    return options.allowZero || /[1-9]/.test(text) || "must be greater than 0"
  })
  return Schema.Union([Schema.String, Schema.Number])
    .pipe(
      Schema.decodeTo(Schema.String.check(check), {
        decode: SchemaGetter.transform(toDecimalText),
        encode: SchemaGetter.transform((text: string) => text)
      })
    )
    .annotate({ description: options.description })
}

/** Decimal text to minor units; undefined when the text has more decimals than the currency. */
export const toMinorUnits = (text: string, decimals: number): bigint | undefined => {
  const [whole, fraction = ""] = text.split(".")
  const trimmed = fraction.replace(/0+$/, "")
  if (trimmed.length > decimals) return undefined
  return BigInt(whole + trimmed.padEnd(decimals, "0"))
}

/** Minor units to a canonical decimal string. */
export const fromMinorUnits = (minor: bigint, decimals: number): string => {
  const negative = minor < 0n
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, "0")
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = decimals > 0 ? digits.slice(digits.length - decimals).replace(/0+$/, "") : ""
  return (negative ? "-" : "") + whole + (fraction.length > 0 ? "." + fraction : "")
}

/** Minor units to the JSON number SPEC asks for (display only; never fed back into arithmetic). */
export const minorToNumber = (minor: bigint, decimals: number): number => Number(fromMinorUnits(minor, decimals))

/**
 * A terminal's network fee (decimal text, null = 0) in minor units of its currency, rounded up: a
 * fee written with more decimals than the currency never charges less than it says.
 */
export const networkFeeMinor = (networkFee: string | null, decimals: number): bigint =>
  networkFee === null
    ? 0n
    : BigInt(new BigNumber(networkFee).shiftedBy(decimals).integerValue(BigNumber.ROUND_CEIL).toFixed(0))
