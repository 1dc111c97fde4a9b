/**
 * The channel on which triggers announce changes of rarely changing tables (migration 0010): the
 * payload is the table's name. src/platform/ChangeNotices.ts listens and drops its caches.
 */
export const changesChannel = "core_changes"
