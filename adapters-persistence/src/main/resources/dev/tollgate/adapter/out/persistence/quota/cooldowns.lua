-- Persistence adapter script: after Redis was unreachable, hands over the cooldowns an instance started alone
-- meanwhile (request-limit cooldowns of a scope, behavioural cooldowns of a key, IP and model), so that they hold
-- across all instances until they end.
--
-- KEYS: cooldown or behaviour hashes (decide.lua's; both keep a running cooldown's end in field u); per KEYS[i],
-- two ARGV from ARGV[2i - 1]: the cooldown's end (ms) and the time left until then (ms). A later end already
-- there stays; the hash lives at least until the end.

for i = 1, #KEYS do
    local untilText, left = ARGV[2 * i - 1], tonumber(ARGV[2 * i])
    local held = redis.call('HGET', KEYS[i], 'u')
    if not held or tonumber(held) < tonumber(untilText) then
        redis.call('HSET', KEYS[i], 'u', untilText)
    end
    if redis.call('PTTL', KEYS[i]) < left then
        redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
    end
end
return #KEYS
