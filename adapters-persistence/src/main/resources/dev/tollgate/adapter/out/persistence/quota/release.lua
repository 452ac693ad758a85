-- Persistence adapter script: gives back the concurrency slots of one lease.
--
-- KEYS: slot sets; ARGV[i]: the lease member in KEYS[i].

local released = 0
for i = 1, #KEYS do
    released = released + redis.call('ZREM', KEYS[i], ARGV[i])
end
return released
