-- Persistence adapter script: after Redis was unreachable, adds what an instance admitted alone meanwhile to the
-- request windows and distinct sets, unchecked — those requests were served, so the windows must count them.
--
-- KEYS: request-window or distinct sorted sets; per KEYS[i], three ARGV from ARGV[3i - 2]: the admission time (ms,
-- the score), the member, and the set's TTL (ms, its window; the set lives at least that long from now).
-- A member already there keeps the later of its two times (GT): a distinct member seen again since is not moved
-- back.

for i = 1, #KEYS do
    local at = 3 * (i - 1)
    redis.call('ZADD', KEYS[i], 'GT', ARGV[at + 1], ARGV[at + 2])
    local left = redis.call('PTTL', KEYS[i])
    if left < tonumber(ARGV[at + 3]) then
        redis.call('PEXPIRE', KEYS[i], ARGV[at + 3])
    end
end
return #KEYS
