-- Persistence adapter script: renews leases of concurrency slots whose requests still run.
--
-- KEYS: slot sets; ARGV[1] new expiry (ms), ARGV[2] lease TTL (ms), ARGV[3] 'renew' or 'reinstate',
-- ARGV[3 + i] the lease member in KEYS[i].
-- 'renew' (every third of the TTL) only extends leases that are still there (ZADD XX): one released meanwhile by
-- its holder must not come back, or its slot would stay taken until the TTL ran out.
-- 'reinstate' (once, after Redis was unreachable) puts a running request's lease back even if it expired during
-- the outage, or was granted by another store meanwhile: the request runs, so its slot counts.

local expiry = ARGV[1]
local ttl = tonumber(ARGV[2])
local reinstate = ARGV[3] == 'reinstate'
local now = string.format('%d', tonumber(expiry) - ttl)
local cleared = {}
for i = 1, #KEYS do
    -- Expired leases (their holders stopped renewing them) no longer count; here they are taken out, once per set.
    if not cleared[KEYS[i]] then
        redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
        cleared[KEYS[i]] = true
    end
    if reinstate then
        redis.call('ZADD', KEYS[i], expiry, ARGV[3 + i])
    else
        redis.call('ZADD', KEYS[i], 'XX', expiry, ARGV[3 + i])
    end
    local left = redis.call('PTTL', KEYS[i])
    if left ~= -2 and left < ttl then
        redis.call('PEXPIRE', KEYS[i], ARGV[2])
    end
end
return #KEYS
