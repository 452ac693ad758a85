-- Persistence adapter script: decides one traffic demand in one atomic step, by the rules of the domain's
-- LocalQuotas (the reference semantics), over the buckets of every gateway instance.
--
-- KEYS: one per check in the demand's order (a bucket shared by two checks appears twice), then the cooldown
-- state of each cooldown scope, then the behaviour state (with a behaviour sample), then the cooldown states of
-- request checks whose cooldown scope is not among the demand's scopes.
--
-- ARGV[1] now (ms, the caller's clock)   ARGV[2] request id (unique across instances)
-- ARGV[3] lease TTL (ms)                 ARGV[4] lease expiry (now + lease TTL)
-- ARGV[5] number of checks               ARGV[6] number of cooldown scopes   ARGV[7] behaviour sample (1/0)
-- ARGV[8..10] cooldown rule: blocks, within (ms), cooldown (ms)
-- ARGV[11..16] behaviour: fingerprint, minimal (1/0), identical threshold, minimal threshold, within (ms),
--              key TTL (2 within + cooldown, ms)      ARGV[17] behaviour cooldown (ms)
-- then 5 values per check, from ARGV[18]:
--   R (requests): R, limit, window (ms), now - window (times up to it have left the window), KEYS index of its
--                 cooldown state (0: none)
--   N (requests, nested): as R, for a window nested in the R check just before it (same subject, no longer a
--                 window: a burst window after its minute window), whose sorted set it shares (same KEYS entry).
--                 Every admission of one is an admission of the other, so the nested log is the outer log's
--                 newest part: counted with ZCOUNT, never written on its own.
--   D (distinct): D, limit, window (ms), now - window, member
--   C (slots):    C, limit, -, -, slot member
--   T / t (tokens, blocking / reporting only): T or t, limit, window (ms), tokens, key TTL (2 window, ms)
--
-- Returns {admitted, cooldown kind (0 none, 1 request limit, 2 behavioural), scope number (-c: the cooldown scope
--          of check c, whose block started the cooldown just now), cooldown wait,
--          then used, retry-after (ms), reset (ms) per check in the demand's order}.
--
-- Lua numbers are doubles: every quantity stays an integer below 2^53 (epoch milliseconds are about 2^41).
-- Whatever goes back to Redis is a string the caller made, int() wrote (plain digits whatever the value) or
-- struct.pack packed, so scores, TTLs and stored counters are always exact integers; redis.call is never handed a
-- number to format.
--
-- Where the time goes (measured): each redis.call costs about as much as a small command, parsing a number from
-- text more than a table lookup, a table or a string made in Lua about as much again. Hence: as few calls as the
-- decision allows (nothing read on the admitted path that the reply does not need), texts made by the caller,
-- numbers parsed once per distinct text.
--
-- Request windows are sorted sets of admission times (score), one member per admission; distinct windows sorted
-- sets of member -> last seen; both pruned when evaluated. Unlike the domain's logs, they log the caller's time
-- as it is: a clock behind the log's newest entry (another instance's clock ahead, or this one stepping back) is
-- not moved up to it. Under a clock that never steps back, this is the domain's log exactly (see
-- RedisQuotaCounter). A request window keeps every admission of its window; what it counts is capped at the
-- domain ring's capacity, max(limit, 8).

local call = redis.call
local tonumber = tonumber
local now = tonumber(ARGV[1])
local nowText = ARGV[1]
local request = ARGV[2]
local leaseTtl, leaseExpiry = ARGV[3], ARGV[4]
local checkCount = tonumber(ARGV[5])
local scopeCount = tonumber(ARGV[6])
local hasBehaviour = ARGV[7] == '1'
local BASE = 17
-- Java saturates token sums at Long.MAX_VALUE; doubles are exact only up to here.
local MAX = 9007199254740991
-- The domain's log keeps its ring's capacity, which never drops below 8, so at most max(limit, 8) times.
local MIN_RING = 8
-- What tells the admissions of one request apart in its request windows (a number would be formatted each time).
local SUFFIX = {':1', ':2', ':3', ':4', ':5', ':6', ':7', ':8', ':9', ':10', ':11', ':12', ':13', ':14', ':15', ':16',
    ':17', ':18', ':19', ':20', ':21', ':22', ':23', ':24'}

local function int(x)
    return string.format('%d', x)
end

-- The same few numbers (limits, windows, token estimates) come many times: each text is parsed once.
local numbers = {}

local function number(text)
    local x = numbers[text]
    if not x then
        x = tonumber(text)
        numbers[text] = x
    end
    return x
end

local function sat(x)
    if x > MAX then
        return MAX
    end
    return x
end

local function floordiv(a, b)
    local q = math.floor(a / b)
    local r = a - q * b
    if r < 0 then
        q = q - 1
    elseif r >= b then
        q = q + 1
    end
    return q
end

-- floor(a * n / d) for 0 <= a < d, exact even where a * n is past 2^53 (windows over a day): long division
-- one bit of n at a time keeps every intermediate below 2 d.
local function muldiv(a, n, d)
    local product = a * n
    if product < MAX then
        return floordiv(product, d)
    end
    local bits = {}
    while n > 0 do
        local bit = n % 2
        bits[#bits + 1] = bit
        n = (n - bit) / 2
    end
    local q, r = 0, 0
    for i = #bits, 1, -1 do
        q, r = q * 2, r * 2
        if r >= d then
            q, r = q + 1, r - d
        end
        if bits[i] == 1 then
            r = r + a
            if r >= d then
                q, r = q + 1, r - d
            end
        end
    end
    return q
end

-- TwoWindowCounter.scale: value * numerator / denominator without leaving the exact range.
local function scale(value, numerator, denominator)
    if value == 0 then
        return 0
    end
    local whole = floordiv(value, denominator)
    return sat(whole * numerator + muldiv(value - whole * denominator, numerator, denominator))
end

-- Two fixed windows, as TwoWindowCounter: {i = index (nil: never rolled), c = current, p = previous}.

local function roll(w, window)
    local at = floordiv(now, window)
    if w.i ~= nil and at <= w.i then
        return
    end
    if w.i ~= nil and at == w.i + 1 then
        w.p = w.c
    else
        w.p = 0
    end
    w.c = 0
    w.i = at
    w.dirty = true
end

local function estimate(w, window)
    roll(w, window)
    return sat(w.c + scale(w.p, window - (now - w.i * window), window))
end

-- TwoWindowCounter.stillCounted: the longest part of a window over which amount may still be counted, weighted
-- as estimate weighs it, for the weighted amount to be at most room.
local function stillCounted(amount, room, window)
    local part = math.min(window, scale(sat(room + 1), window, amount))
    if part > 0 and scale(amount, part, window) > room then
        return part - 1
    end
    return part
end

local function windowReset(w, window)
    roll(w, window)
    if w.c > 0 then
        return (w.i + 2) * window - now
    end
    if w.p > 0 then
        return (w.i + 1) * window - now
    end
    return 0
end

local function add(w, window, amount)
    roll(w, window)
    w.c = sat(w.c + amount)
end

-- The behavioural counters: "index current previous" as text in the behaviour hash.

local function decode(text)
    if not text then
        return {c = 0, p = 0}
    end
    local i, c, p = string.match(text, '^(%S+) (%S+) (%S+)$')
    return {i = tonumber(i), c = tonumber(c), p = tonumber(p)}
end

local function encode(w)
    return string.format('%d %d %d', w.i, w.c, w.p)
end

-- Token windows: one string per bucket, index, current and previous packed as three doubles (exact integers, no
-- text to parse or format). A bucket written by an earlier version of this script is a hash i/c/p: it is read as
-- such and replaced by the string on the next write.

local windows = {}

-- Every token window of the demand in one read.
local function tokensLoad()
    local keys = {}
    for c = 1, checkCount do
        local kind = ARGV[BASE + 5 * c - 4]
        if (kind == 't' or kind == 'T') and not windows[KEYS[c]] then
            keys[#keys + 1] = KEYS[c]
            windows[KEYS[c]] = true
        end
    end
    if #keys == 0 then
        return
    end
    local values = call('MGET', unpack(keys))
    local missing = false
    for k = 1, #keys do
        local v = values[k]
        if v then
            local i, c, p = struct.unpack('>ddd', v)
            windows[keys[k]] = {i = i, c = c, p = p}
        else
            windows[keys[k]] = {c = 0, p = 0, fresh = true}
            missing = true
        end
    end
    -- MGET answers nil for a hash as for no key: one look tells whether any of them is an earlier version's.
    if missing and call('EXISTS', unpack(keys)) > 0 then
        for k = 1, #keys do
            if not values[k] then
                local h = call('HMGET', keys[k], 'i', 'c', 'p')
                if h[1] then
                    windows[keys[k]] = {i = tonumber(h[1]), c = tonumber(h[2]), p = tonumber(h[3])}
                end
            end
        end
    end
end

-- The domain keeps the roll of an evaluation (its index never goes back), and a counter it creates while only
-- looking lives out its idle time: so does this one.
local function tokensStore(key, w, ttl, refresh)
    if not w.dirty and not refresh then
        return
    end
    local packed = struct.pack('>ddd', w.i, w.c, w.p)
    if refresh or w.fresh then
        call('SET', key, packed, 'PX', ttl)
    else
        call('SET', key, packed, 'KEEPTTL')
    end
    w.dirty = false
    w.fresh = false
end

-- Newest time in a sorted set (request and distinct windows), for a reset.
local function newest(key)
    return tonumber(call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
end

-- Request-limit cooldown of a scope: a hash of u (until) and b (the latest block times, comma-separated).

local cdBlocks, cdWithin, cdLength

local function cooldownRule()
    if not cdBlocks then
        cdBlocks, cdWithin, cdLength = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
    end
end

local function cooldownWait(key)
    local u = call('HGET', key, 'u')
    if u then
        local untilT = tonumber(u)
        if untilT > now then
            return untilT - now
        end
    end
    return 0
end

-- Records a request-limit block now; the block that makes the rule's number within its window starts the cooldown
-- at once (the blocks are forgotten) and its length is returned, else 0 (CooldownState.recordBlock).
local function recordBlock(key)
    cooldownRule()
    local blocks = {}
    local held = call('HGET', key, 'b')
    if held then
        for block in string.gmatch(held, '[^,]+') do
            blocks[#blocks + 1] = block
        end
    end
    blocks[#blocks + 1] = nowText
    local first = math.max(1, #blocks - cdBlocks + 1)
    local recent = 0
    for i = first, #blocks do
        local t = tonumber(blocks[i])
        if t > now - cdWithin and t <= now then
            recent = recent + 1
        end
    end
    if recent >= cdBlocks then
        call('HSET', key, 'u', int(now + cdLength))
        call('HDEL', key, 'b')
        call('PEXPIRE', key, int(cdWithin + cdLength))
        return cdLength
    end
    call('HSET', key, 'b', table.concat(blocks, ',', first, #blocks))
    call('PEXPIRE', key, int(cdWithin + cdLength))
    return 0
end

-- Behavioural cooldown of a key, IP and model: a hash of u (until), p (last prune), m (minimal requests) and one
-- field f<fingerprint> per prompt fingerprint, each counter as "index current previous".

local behaviourKey = KEYS[checkCount + scopeCount + 1]
local behaviourField = hasBehaviour and ('f' .. ARGV[11])
-- u, p, the fingerprint's counter, m
local behaviour = hasBehaviour and call('HMGET', behaviourKey, 'u', 'p', behaviourField, 'm')

local function behaviourRecord(key)
    local bMinimal = ARGV[12] == '1'
    local bIdentical, bMinimalMax, bWithin = tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15])
    local lastPrune = tonumber(behaviour[2]) or 0
    local sameText = behaviour[3]
    if now - lastPrune >= bWithin then
        local fields = call('HGETALL', key)
        local stale, rolled = {}, {'p', nowText}
        for i = 1, #fields, 2 do
            if string.sub(fields[i], 1, 1) == 'f' then
                local w = decode(fields[i + 1])
                if estimate(w, bWithin) == 0 then
                    stale[#stale + 1] = fields[i]
                elseif w.dirty then
                    rolled[#rolled + 1] = fields[i]
                    rolled[#rolled + 1] = encode(w)
                end
            end
        end
        -- A key sees up to a minute's worth of prompts: write them a few hundred at a time, since unpack puts
        -- every argument on Lua's small stack.
        for i = 1, #stale, 200 do
            call('HDEL', key, unpack(stale, i, math.min(i + 199, #stale)))
        end
        for i = 1, #rolled, 400 do
            call('HSET', key, unpack(rolled, i, math.min(i + 399, #rolled)))
        end
        sameText = call('HGET', key, behaviourField)
    end
    local same = decode(sameText)
    add(same, bWithin, 1)
    local writes = {behaviourField, encode(same)}
    local trips = estimate(same, bWithin) >= bIdentical
    if bMinimal then
        local minimal = decode(behaviour[4])
        add(minimal, bWithin, 1)
        writes[3], writes[4] = 'm', encode(minimal)
        trips = estimate(minimal, bWithin) >= bMinimalMax or trips
    end
    if trips then
        writes[#writes + 1] = 'u'
        writes[#writes + 1] = int(now + tonumber(ARGV[17]))
    end
    call('HSET', key, unpack(writes))
    call('PEXPIRE', key, ARGV[16])
end

-- The demand: cooldowns first.

local blockKind, blockScope, blockWait = 0, 0, 0
for s = 1, scopeCount do
    local wait = cooldownWait(KEYS[checkCount + s])
    if wait > 0 and (blockKind == 0 or wait > blockWait) then
        blockKind, blockScope, blockWait = 1, s, wait
    end
end
if hasBehaviour then
    local untilT = tonumber(behaviour[1])
    if untilT and untilT > now then
        local wait = untilT - now
        if blockKind == 0 or wait > blockWait then
            blockKind, blockScope, blockWait = 2, 0, wait
        end
    end
end

-- Then every check is evaluated without changing anything: counts[c] is what the log of check c holds in its
-- window (request windows: before the ring's capacity applies), limits[c] its limit.

tokensLoad()
local counts, limits = {}, {}
local unexpired = '(' .. nowText
local reply = {0, blockKind, blockScope, blockWait}
local passes = blockKind == 0
for c = 1, checkCount do
    local at = BASE + 5 * c - 4
    local kind, key = ARGV[at], KEYS[c]
    local limit = number(ARGV[at + 1])
    local used, wait = 0, 0
    limits[c] = limit
    if kind == 'R' or kind == 'N' then
        local n
        if kind == 'R' then
            call('ZREMRANGEBYSCORE', key, '-inf', ARGV[at + 3])
            n = call('ZCARD', key)
        else
            -- The outer check just pruned the set to its own, longer window: count the newest part.
            n = call('ZCOUNT', key, '(' .. ARGV[at + 3], '+inf')
        end
        counts[c] = n
        used = n
        if used > limit then
            -- The ring keeps the newest max(limit, 8): the log's count in its window.
            used = math.min(used, math.max(limit, MIN_RING))
        end
        if used >= limit then
            -- The (used - limit + 1) oldest must leave before there is room for one more: the limit-th newest
            -- (of a nested window's set too: at least limit of its admissions lie in the nested window).
            wait = tonumber(call('ZRANGE', key, -limit, -limit, 'WITHSCORES')[2]) + number(ARGV[at + 2]) - now
        end
    elseif kind == 'D' then
        call('ZREMRANGEBYSCORE', key, '-inf', ARGV[at + 3])
        local n = call('ZCARD', key)
        counts[c] = n
        used = n
        if n >= limit and not call('ZSCORE', key, ARGV[at + 4]) then
            -- The (n - limit + 1) least recently seen must leave (a set may hold more than the limit it is checked
            -- against: a failover's share, members handed over after an outage): the limit-th most recent.
            wait = tonumber(call('ZRANGE', key, -limit, -limit, 'WITHSCORES')[2]) + number(ARGV[at + 2]) - now
        end
    elseif kind == 'C' then
        -- An expired lease (its holder stopped renewing it) is a slot given back; renew.lua clears them out.
        used = call('ZCOUNT', key, unexpired, '+inf')
        counts[c] = used
        if used >= limit then
            -- When a slot frees up is unknown: ask the client to come back in a second.
            wait = 1000
        end
    else
        local window = number(ARGV[at + 2])
        local w = windows[key]
        used = estimate(w, window)
        local amount = number(ARGV[at + 3])
        if sat(used + amount) > limit then
            -- Until it fits if nothing is added meanwhile (TwoWindowCounter.waitMillis): the previous window
            -- sliding out of this one, then this one sliding out of the next.
            local boundary = (w.i + 1) * window
            local room = limit - amount
            if room < 0 then
                wait = boundary - now
            elseif w.c <= room and w.p > 0 then
                wait = math.max(1, boundary - stillCounted(w.p, room - w.c, window) - now)
            else
                wait = math.max(1, boundary + window - stillCounted(w.c, room, window) - now)
            end
        end
    end
    if wait < 0 then
        wait = 0
    elseif wait > 0 and kind ~= 't' then
        passes = false
    end
    reply[3 * c + 2] = used
    reply[3 * c + 3] = wait
end

if not passes then
    -- The resets of the evaluation; the domain keeps what looking did to its token windows (a roll never goes
    -- back): so does the store.
    for c = 1, checkCount do
        local at = BASE + 5 * c - 4
        local kind, key = ARGV[at], KEYS[c]
        local reset = 0
        if kind == 'R' or kind == 'N' or kind == 'D' then
            if counts[c] > 0 then
                reset = newest(key) + number(ARGV[at + 2]) - now
            end
        elseif kind ~= 'C' then
            local w = windows[key]
            reset = windowReset(w, number(ARGV[at + 2]))
            tokensStore(key, w, ARGV[at + 4], false)
        end
        if reset < 0 then
            reset = 0
        end
        reply[3 * c + 4] = reset
    end
    if blockKind == 0 then
        -- A block that starts a cooldown refuses this request with it: scope number -c names check c's scope.
        local started = 0
        -- One refusal is one block of its scope, however many of the scope's windows (minute, burst) are full.
        local blocked = {}
        for c = 1, checkCount do
            local at = BASE + 5 * c - 4
            local kind = ARGV[at]
            local scopeKey = ARGV[at + 4] ~= '0' and KEYS[tonumber(ARGV[at + 4])]
            if (kind == 'R' or kind == 'N') and scopeKey and reply[3 * c + 3] > 0 and not blocked[scopeKey] then
                blocked[scopeKey] = true
                local length = recordBlock(scopeKey)
                if length > started then
                    started = length
                    reply[2], reply[3], reply[4] = 1, -c, length
                end
            end
        end
    end
    return reply
end

-- Admitted: the request counts in every bucket. recorded[key] is what a bucket's log holds after the
-- admissions recorded so far (a bucket may serve several checks of one demand).

reply[1] = 1
local recorded = {}
for c = 1, checkCount do
    local at = BASE + 5 * c - 4
    local kind, key = ARGV[at], KEYS[c]
    local used, reset = 0, 0
    if kind == 'R' then
        local n = (recorded[key] or counts[c]) + 1
        recorded[key] = n
        call('ZADD', key, nowText, request .. (SUFFIX[c] or (':' .. c)))
        call('PEXPIRE', key, ARGV[at + 2])
        used = math.min(n, math.max(limits[c], MIN_RING))
        reset = number(ARGV[at + 2])
    elseif kind == 'N' then
        -- Counted by the outer check's ZADD.
        used = math.min(counts[c] + 1, math.max(limits[c], MIN_RING))
        reset = number(ARGV[at + 2])
    elseif kind == 'D' then
        used = (recorded[key] or counts[c]) + call('ZADD', key, nowText, ARGV[at + 4])
        recorded[key] = used
        call('PEXPIRE', key, ARGV[at + 2])
        reset = number(ARGV[at + 2])
    elseif kind == 'C' then
        used = (recorded[key] or counts[c]) + call('ZADD', key, leaseExpiry, ARGV[at + 4])
        recorded[key] = used
        call('PEXPIRE', key, leaseTtl)
    else
        local window = number(ARGV[at + 2])
        local w = windows[key]
        add(w, window, number(ARGV[at + 3]))
        used, reset = estimate(w, window), windowReset(w, window)
        tokensStore(key, w, ARGV[at + 4], true)
    end
    reply[3 * c + 2] = used
    reply[3 * c + 3] = 0
    reply[3 * c + 4] = reset
end
if hasBehaviour then
    behaviourRecord(behaviourKey)
end
return reply
