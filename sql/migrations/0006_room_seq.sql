-- A room's arrival sequence numbers are unique: every decision a room commits takes the next one,
-- so a room whose memory missed another process's decision (two processes holding one room) fails
-- its commit on the taken number, dies, and rebuilds from SQL instead of resting a crossing order.
CREATE UNIQUE INDEX orders_room_seq ON orders (room_key, base, quote, seq) WHERE seq IS NOT NULL
