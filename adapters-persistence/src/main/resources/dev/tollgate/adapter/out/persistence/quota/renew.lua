-- Persistence adapter script: renews leases of concurrency slots whose requests still run.
--
-- KEYS: slot sets; ARGV[1] new expiry (ms), ARGV[2] lease TTL (ms), ARGV[2 + i] the lease member in KEYS[i].
-- XX: a lease that already expired and was taken out must not come back, or the slot would count twice.

local expiry = ARGV[1]
local ttl = tonumber(ARGV[2])
local now = string.format('%d', tonumber(expiry) - ttl)
local cleared = {}
for i = 1, #KEYS do
    -- Expired leases (their holders stopped renewing them) no longer count; here they are taken out, once per set.
    if not cleared[KEYS[i]] then
        redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
        cleared[KEYS[i]] = true
    end
    redis.call('ZADD', KEYS[i], 'XX', expiry, ARGV[2 + i])
    local left = redis.call('PTTL', KEYS[i])
    if left ~= -2 and left < ttl then
        redis.call('PEXPIRE', KEYS[i], ARGV[2])
    end
end
return #KEYS
