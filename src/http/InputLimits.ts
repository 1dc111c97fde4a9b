/**
 * String and depth limits of every request (CONTRACT C19 §7): no string field (or member name) may hold
 * U+0000 or a lone surrogate, and JSON may nest at most `limits.jsonDepthMax` levels; else 400 10001
 * naming the field. Both are text PostgreSQL cannot store or that recursion should never meet, so they are
 * refused at the edge, before any handler, decoder or actor sees them.
 *
 * The body check is one pass over the text that allocates nothing: it counts nesting outside strings and
 * looks at `\u` escapes (a raw NUL inside a string is not JSON at all, so it is flagged too). Only a
 * body that shows a NUL or a surrogate escape is parsed, to name the field; well-formed pairs (emoji
 * written as escapes) then pass. Query strings are looked at only when they hold `%00` (a percent-decoded
 * query cannot hold a lone surrogate: invalid UTF-8 decodes to U+FFFD).
 */
import { limits } from "../platform/Config.ts"

const nul = "must not contain U+0000 (NUL)"
const loneSurrogate = "must not contain a lone surrogate (text must be well-formed UTF-16)"

/** The value of 4 hex digits at `at`, or -1. */
const hex4 = (text: string, at: number): number => {
  let value = 0
  for (let k = 0; k < 4; k++) {
    const c = text.charCodeAt(at + k) | 0x20
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1
    if (digit < 0) return -1
    value = value * 16 + digit
  }
  return value
}

/** String.prototype.isWellFormed (Node 20+; the ES2023 library this project compiles against lacks its type). */
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed()

const problemOf = (text: string): string | undefined =>
  text.includes("\u0000") ? nul : isWellFormed(text) ? undefined : loneSurrogate

/** The first string (or member name) of a parsed body that breaks the rule, as "body.path: rule". */
const findString = (value: unknown, path: string): string | undefined => {
  if (typeof value === "string") {
    const problem = problemOf(value)
    return problem === undefined ? undefined : `${path}: ${problem}`
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findString(value[i], `${path}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (value !== null && typeof value === "object") {
    for (const [key, member] of Object.entries(value)) {
      const problem = problemOf(key)
      if (problem !== undefined) return `${path}: a member name ${problem}`
      const found = findString(member, `${path}.${key}`)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * What is wrong with a JSON body's nesting or strings, as a message naming the field; undefined when
 * nothing is (malformed JSON included: the decoder answers that as it always did).
 */
export const jsonBodyProblem = (text: string): string | undefined => {
  let depth = 0
  let inString = false
  let suspect = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x22) inString = false
      else if (c === 0) suspect = true
      else if (c === 0x5c) {
        if (text.charCodeAt(i + 1) === 0x75) {
          const code = hex4(text, i + 2)
          if (code === 0 || (code >= 0xd800 && code <= 0xdfff)) suspect = true
          i += 5
        } else i += 1
      }
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limits.jsonDepthMax) return `body: JSON nested deeper than ${limits.jsonDepthMax} levels`
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  if (!suspect) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // Not JSON: a raw NUL in a string, or anything else the decoder refuses; name the body here.
    return text.includes("\u0000") ? `body: ${nul}` : undefined
  }
  return findString(parsed, "body")
}

/** What is wrong with the request target's path or query (a NUL), naming the parameter; else undefined. */
export const targetProblem = (url: string): string | undefined => {
  if (!url.includes("%00")) return undefined
  const mark = url.indexOf("?")
  const path = mark < 0 ? url : url.slice(0, mark)
  if (path.includes("%00")) return `path: ${nul}`
  for (const [name, value] of new URLSearchParams(url.slice(mark + 1))) {
    if (name.includes("\u0000")) return `query: a parameter name ${nul}`
    if (value.includes("\u0000")) return `query.${name}: ${nul}`
  }
  return undefined
}
