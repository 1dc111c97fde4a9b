/** The periodic jobs' schedules (expiry sweep, card and federation reconciliation) as ClusterCron expressions. */

/**
 * The cron expression of a beat of `seconds` (1..3600): every n seconds below a minute (a divisor of 60
 * beats evenly), every n minutes below an hour, else hourly.
 */
export const beat = (seconds: number): string => {
  if (seconds < 60) return `*/${seconds} * * * * *`
  const minutes = Math.round(seconds / 60)
  return minutes < 60 ? `0 */${minutes} * * * *` : "0 0 * * * *"
}
