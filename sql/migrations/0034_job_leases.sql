-- Periodic jobs once per cluster, on their period (issue #22 item 16). Every process under WORKERS runs
-- the same schedule (src/platform/PeriodicJob.ts); a pass of job J at beat b = floor(epoch_ms / period_ms)
-- runs only in the process that claims (J, b) here first: one row per job, advanced by a conditional
-- upsert (`beat < EXCLUDED.beat`), so a beat is claimed once across all processes and restarts, and the
-- table never grows. `passes` counts the passes claimed (all processes together).
CREATE TABLE job_leases (
  job        text PRIMARY KEY,
  beat       bigint NOT NULL,
  passes     bigint NOT NULL DEFAULT 1,
  claimed_at timestamptz NOT NULL DEFAULT now()
);
