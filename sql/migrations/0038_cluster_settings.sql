-- Settings fixed for the life of a database (issue #26): `shard_count`, the number of shards effect/cluster
-- spreads entities over. Every message it keeps (cluster_messages) and every shard lock names a shard by its
-- number, so a runner started with another count would route an entity to a second owner: the first process
-- records its count here and every later one must start with the same (src/platform/ActorRuntime.ts).
CREATE TABLE cluster_settings (
  name  text PRIMARY KEY,
  value text NOT NULL
);
