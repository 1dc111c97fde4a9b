/** Request numbers: the envelope `id` and `X-Request-Id`, unique and increasing within the process (CONTRACT C4). */
let counter = 0
export const nextRequestNumber = (): number => ++counter
