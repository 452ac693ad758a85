package dev.tollgate.adapter.out.persistence.quota;

import dev.tollgate.application.port.out.QuotaCounter;
import dev.tollgate.domain.quota.BehaviourRule;
import dev.tollgate.domain.quota.BehaviourSample;
import dev.tollgate.domain.quota.Bucket;
import dev.tollgate.domain.quota.CheckState;
import dev.tollgate.domain.quota.CooldownRule;
import dev.tollgate.domain.quota.QuotaCheck;
import dev.tollgate.domain.quota.QuotaDecision;
import dev.tollgate.domain.quota.SlotLease;
import dev.tollgate.domain.quota.TrafficDemand;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persistence adapter: the §8 traffic-limit buckets in Redis, shared by every gateway instance. Each
 * {@link #decide} is one Lua script run atomically on the server, following the domain's reference rules
 * ({@link dev.tollgate.domain.quota.LocalQuotas}) step by step; the times are the caller's, never the server's.
 * Concurrency slots are leases that expire unless renewed, so the slots of an instance that died free themselves;
 * this adapter renews the leases it handed out until they are released (and the renewal clears out expired ones).
 *
 * <p>One deliberate difference from the domain: request and distinct windows log each admission at the caller's
 * time as it is. The domain's logs never go back in time (an admission at a clock behind the log's newest entry is
 * logged at that entry's time), which in Redis would take one more read of every such window per decision. So
 * under a clock that steps back, or instances whose clocks disagree, an admission may be logged before the newest
 * entry, and the reset reported right after an admission is the window's length even where a newer entry (from a
 * clock ahead) lies in it. Under a clock that never steps back the decisions are the domain's exactly; the
 * equivalence test compares these windows under such a clock, and every other kind under steps back too.
 *
 * <p>One assumption about the demands: a request window right after another of the same subject and no shorter
 * window (a burst window after its minute window, as {@code TrafficRules} always builds them) holds only that
 * window's newest admissions, so it is counted in the other's sorted set and has none of its own ({@link #nests}).
 */
public final class RedisQuotaCounter implements SharedQuotaStore, AutoCloseable {

    public static final String DEFAULT_KEY_PREFIX = "tollgate:";
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMillis(250);
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(30);

    private static final Logger LOG = LoggerFactory.getLogger(RedisQuotaCounter.class);
    private static final Duration MIN_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    private static final String COOLDOWN = "cooldown";
    private static final String BEHAVIOUR = "behaviour";
    /**
     * After a failed connection attempt, callers fail at once for this long instead of each waiting for a connect
     * of its own: against an address that drops packets every request would otherwise spend the whole timeout.
     */
    private static final long CONNECT_RETRY_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Slots renewed per script run, so that thousands of requests in flight do not make one huge script call. */
    private static final int RENEW_BATCH = 512;
    /** decide.lua's arguments before the first check's, and per check. */
    private static final int HEADER = 17;
    private static final int PER_CHECK = 5;

    private final RedisClient client;
    /** Where to connect again from a decision, with the command timeout (connect() made the first attempt). */
    private final RedisURI onRequest;
    private final String endpoint;
    private final String prefix;
    private final long leaseTtlMillis;
    private final String leaseTtl;
    private final Clock clock;
    private final Script decide = Script.load("decide.lua");
    private final Script renew = Script.load("renew.lua");
    private final Script release = Script.load("release.lua");
    private final Script replay = Script.load("replay.lua");
    private final Script replayCooldowns = Script.load("cooldowns.lua");
    private final String instance = randomId();
    private final AtomicLong sequence = new AtomicLong();
    private final Map<String, SlotLease> held = new ConcurrentHashMap<>();
    /** Leases whose release Redis missed, given back in the background (or at once when it answers again). */
    private final Map<String, SlotLease> unreleased = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicBoolean releasingMissed =
            new java.util.concurrent.atomic.AtomicBoolean();
    private final ScheduledExecutorService renewal;
    private final Object connecting = new Object();
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile long lastConnectFailure;
    private volatile RedisException connectFailure;
    private volatile boolean closed;
    /**
     * Redis answered NOSCRIPT: it lost its script cache, as a restart does, and with it (unless it persists) the
     * slot sets of requests still running here: the next renewal puts them back rather than only extending them.
     */
    private final AtomicBoolean scriptCacheLost = new AtomicBoolean();

    private RedisQuotaCounter(RedisClient client, String endpoint, String prefix, Duration leaseTtl, Clock clock,
            RedisURI onRequest) {
        this.client = client;
        this.onRequest = onRequest;
        this.endpoint = endpoint;
        this.prefix = prefix;
        this.leaseTtlMillis = leaseTtl.toMillis();
        this.leaseTtl = Long.toString(leaseTtlMillis);
        this.clock = clock;
        this.renewal = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "tollgate-quota-lease-renewal");
            thread.setDaemon(true);
            return thread;
        });
        long every = Math.max(1, leaseTtlMillis / 3);
        renewal.scheduleWithFixedDelay(this::renewHeldLeases, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Opens the counter. An unreachable Redis does not fail here: the gateway starts, decisions throw
     * {@link Unavailable} (the caller's failure policy applies) and the connection is tried again.
     *
     * @param redisUri       e.g. {@code redis://:password@host:6379/0}; never repeated in messages or logs
     * @param keyPrefix      put before every bucket's key, e.g. {@value #DEFAULT_KEY_PREFIX}
     * @param commandTimeout how long a decision may wait for Redis (connecting may take at least a second)
     * @param leaseTtl       how long a concurrency slot outlives its last renewal; renewed every third of it
     * @param clock          the time leases are renewed at (the callers' clock)
     */
    public static RedisQuotaCounter connect(String redisUri, String keyPrefix, Duration commandTimeout,
            Duration leaseTtl, Clock clock) {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(clock, "clock");
        if (commandTimeout.toMillis() < 1 || leaseTtl.toMillis() < 3) {
            throw new IllegalArgumentException("the command timeout takes at least 1 ms, the lease TTL at least 3 ms");
        }
        // The first connection — the socket, the handshake, loading the scripts — is made here, at start, off the
        // request path, and may take longer than one decision on a loaded or just-started host: it gets at least a
        // second, so that a start on a busy machine does not begin with the limits decided alone. A connection made
        // again on the request path (after a failed start) waits no longer than a decision would.
        Duration connectTimeout = max(commandTimeout, MIN_CONNECT_TIMEOUT);
        RedisURI atStart = parse(redisUri);
        atStart.setTimeout(connectTimeout);
        RedisURI onRequest = parse(redisUri);
        onRequest.setTimeout(commandTimeout);
        // Lettuce's reconnect delay grows to 30 s by default; after an outage the shared limits would stay off that
        // long. Capped at half a second, a Redis that is back is used again within about a second (G9: ≤ 5 s).
        ClientResources resources = DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(20), Duration.ofMillis(500), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        RedisClient client = RedisClient.create(resources, onRequest);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                // A command queued while disconnected would run after its caller gave up on it and counted a
                // request that was never served: fail it at once instead.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                // Connecting may take longer than one command on a loaded host; a refused connection fails at once.
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                .timeoutOptions(TimeoutOptions.builder().timeoutSource(new TimeoutOptions.TimeoutSource() {
                    @Override
                    public long getTimeout(RedisCommand<?, ?, ?> command) {
                        // Scripts are loaded only while connecting, which waits for them itself (loadScripts).
                        return (command.getType() == CommandType.SCRIPT ? connectTimeout : commandTimeout).toNanos();
                    }

                    @Override
                    public TimeUnit getTimeUnit() {
                        return TimeUnit.NANOSECONDS;
                    }
                }).build())
                .build());
        RedisQuotaCounter counter = new RedisQuotaCounter(client, describe(onRequest), keyPrefix, leaseTtl, clock,
                onRequest);
        try {
            counter.connectNow(atStart);
        } catch (Unavailable e) {
            LOG.warn("{}; until it answers, each decision that needs it fails and the configured failure policy "
                    + "decides (by default a per-instance share of each limit)", e.getMessage());
        }
        return counter;
    }

    /** With the default prefix, command timeout and lease TTL, renewing leases on the system clock. */
    public static RedisQuotaCounter connect(String redisUri) {
        return connect(redisUri, DEFAULT_KEY_PREFIX, DEFAULT_COMMAND_TIMEOUT, DEFAULT_LEASE_TTL, Clock.systemUTC());
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Where this counter keeps its buckets, without credentials (for messages, logs and health checks). */
    public String endpoint() {
        return endpoint;
    }

    @Override
    public QuotaDecision decide(TrafficDemand demand, Instant now) {
        List<QuotaCheck> checks = demand.checks();
        List<Bucket> scopes = demand.cooldownScopes();
        BehaviourSample sample = demand.behaviour();
        int checkCount = checks.size();
        int scopeCount = scopes.size();
        int fixedKeys = checkCount + scopeCount + (sample == null ? 0 : 1);
        // Cooldown states of request checks whose scope is not one of the demand's: rare, so a list grown on need.
        List<String> extraKeys = null;
        String[] keys = new String[fixedKeys];
        String[] args = new String[HEADER + PER_CHECK * checkCount];
        long millis = now.toEpochMilli();
        String id = nextLeaseId("-");
        args[0] = Long.toString(millis);
        args[1] = id;
        args[2] = leaseTtl;
        args[3] = Long.toString(millis + leaseTtlMillis);
        args[4] = Integer.toString(checkCount);
        args[5] = Integer.toString(scopeCount);
        args[6] = sample == null ? "0" : "1";
        CooldownRule cooldown = demand.cooldown();
        args[7] = Integer.toString(cooldown.blocks());
        args[8] = Long.toString(cooldown.within().toMillis());
        args[9] = Long.toString(cooldown.cooldown().toMillis());
        if (sample == null) {
            Arrays.fill(args, 10, HEADER, "0");
        } else {
            BehaviourRule rule = sample.rule();
            long within = rule.within().toMillis();
            long length = rule.cooldown().toMillis();
            keys[checkCount + scopeCount] = prefix + sample.scope().withRule(BEHAVIOUR).key();
            args[10] = Long.toString(sample.fingerprint());
            args[11] = sample.minimal() ? "1" : "0";
            args[12] = Integer.toString(rule.identical());
            args[13] = Integer.toString(rule.minimal());
            args[14] = Long.toString(within);
            args[15] = Long.toString(2 * within + length);
            args[16] = Long.toString(length);
        }
        for (int s = 0; s < scopeCount; s++) {
            keys[checkCount + s] = prefix + scopes.get(s).withRule(COOLDOWN).key();
        }
        int slot = 0;
        for (int c = 0; c < checkCount; c++) {
            QuotaCheck check = checks.get(c);
            keys[c] = prefix + check.bucket().key();
            int at = HEADER + PER_CHECK * c;
            args[at + 1] = Long.toString(check.limit());
            if (check instanceof QuotaCheck.Requests r) {
                long window = r.window().toMillis();
                args[at] = "R";
                if (c > 0 && nests(checks.get(c - 1), r)) {
                    // Counted in the window before it, which holds the same admissions over a longer time.
                    args[at] = "N";
                    keys[c] = keys[c - 1];
                }
                args[at + 2] = Long.toString(window);
                args[at + 3] = Long.toString(millis - window);
                String cooldownIndex = "0";
                if (r.cooldownScope() != null) {
                    int index = scopes.indexOf(r.cooldownScope());
                    if (index >= 0) {
                        cooldownIndex = Integer.toString(checkCount + index + 1);
                    } else {
                        if (extraKeys == null) {
                            extraKeys = new ArrayList<>(2);
                        }
                        extraKeys.add(prefix + r.cooldownScope().withRule(COOLDOWN).key());
                        cooldownIndex = Integer.toString(fixedKeys + extraKeys.size());
                    }
                }
                args[at + 4] = cooldownIndex;
            } else if (check instanceof QuotaCheck.Distinct d) {
                long window = d.window().toMillis();
                args[at] = "D";
                args[at + 2] = Long.toString(window);
                args[at + 3] = Long.toString(millis - window);
                args[at + 4] = d.member();
            } else if (check instanceof QuotaCheck.Concurrency) {
                args[at] = "C";
                args[at + 2] = "";
                args[at + 3] = "";
                args[at + 4] = slotMember(id, slot++);
            } else {
                QuotaCheck.Tokens t = (QuotaCheck.Tokens) check;
                long window = t.window().toMillis();
                args[at] = t.blocking() ? "T" : "t";
                args[at + 2] = Long.toString(window);
                args[at + 3] = Long.toString(t.tokens());
                args[at + 4] = Long.toString(2 * window);
            }
        }
        if (extraKeys != null) {
            keys = Arrays.copyOf(keys, fixedKeys + extraKeys.size());
            for (int i = 0; i < extraKeys.size(); i++) {
                keys[fixedKeys + i] = extraKeys.get(i);
            }
        }
        QuotaDecision decision = decideOnce(demand, keys, args, id, slot > 0);
        if (!decision.admitted() && refusedForSlotsAlone(decision)) {
            // A slot a finished request gave back on another instance may still be on its way over that instance's
            // own connection: a client at exactly its cap sends its next request the moment it has its answer, and
            // one in a thousand came in first (an audit; measured with two instances). Slots are all that can change
            // in a moment, and a refusal for them alone counted nowhere, so the same demand is decided once more.
            try {
                Thread.sleep(SLOT_RECHECK_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return decision;
            }
            decision = decideOnce(demand, keys, args, id, true);
        }
        return decision;
    }

    /** How long a refusal for slots alone waits before its demand is decided once more. */
    static final long SLOT_RECHECK_MILLIS = 5;

    /** Refused only because slots were taken: no window, set, token budget or cooldown refused it. */
    private static boolean refusedForSlotsAlone(QuotaDecision decision) {
        if (decision.cooldown() != null) {
            return false;
        }
        boolean slotsFull = false;
        for (CheckState state : decision.states()) {
            if (!state.passed()) {
                if (!(state.check() instanceof QuotaCheck.Concurrency)) {
                    return false;
                }
                slotsFull = true;
            }
        }
        return slotsFull;
    }

    private QuotaDecision decideOnce(TrafficDemand demand, String[] keys, String[] args, String id,
            boolean takesSlots) {
        List<Object> reply;
        try {
            reply = run(decide, ScriptOutputType.MULTI, keys, args);
        } catch (Unavailable e) {
            if (takesSlots) {
                // The script may have run after all (a timeout says nothing about that) and taken slots its caller
                // will never use: take them back as soon as Redis answers, not when their lease runs out.
                releaseLater(new SlotLease(id, demand.slots()), 0);
            }
            throw e;
        }
        if (!unreleased.isEmpty()) {
            releaseMissedSoon(); // Redis answers again
        }
        return decision(demand, reply, id);
    }

    /**
     * Whether request window {@code inner} is nested in {@code outer}, the check before it in the demand: the same
     * subject in the same scope over no longer a window. The domain always asks for a subject's burst window right
     * after its minute window ({@code TrafficRules}), so every admission of the burst window is one of the minute
     * window's, and its log is the minute window's log cut to the last seconds: one sorted set serves both (the
     * burst count is a {@code ZCOUNT} of it): 45 Redis commands per decision instead of 57.
     */
    static boolean nests(QuotaCheck outer, QuotaCheck.Requests inner) {
        return outer instanceof QuotaCheck.Requests o && nests(o.bucket(), o.window(), inner.bucket(), inner.window());
    }

    private static boolean nests(Bucket outer, Duration outerWindow, Bucket inner, Duration innerWindow) {
        return outer.scope() == inner.scope() && outer.subject().equals(inner.subject()) && !outer.equals(inner)
                && outerWindow.compareTo(innerWindow) >= 0;
    }

    @Override
    public void release(SlotLease lease, Instant now) {
        if (lease.isEmpty()) {
            return;
        }
        // Stop renewing first: if Redis cannot be reached now, the lease still ends after its TTL.
        held.remove(lease.id());
        try {
            releaseNow(lease);
        } catch (Unavailable e) {
            releaseLater(lease, 0);
            throw e;
        }
    }

    /**
     * Writes the release to the connection and returns: Redis runs it before any command sent after it, so a request
     * the client sends once it has its answer — decided here or on another instance — finds the slots free. Waiting
     * for the answer on a blocking thread instead let such a request reach Redis first: a client keeping exactly
     * its cap in flight across two instances was refused for 1.2–3 % of its requests (an audit, 2026-11-29). A
     * release that fails (no connection, a timeout, a script cache Redis lost) is done again off this thread.
     */
    @Override
    public void releaseSoon(SlotLease lease, Instant now) {
        if (lease.isEmpty()) {
            return;
        }
        held.remove(lease.id());
        StatefulRedisConnection<String, String> open = connection;
        if (open == null) {
            releaseLater(lease, 0);
            return;
        }
        String[][] keysAndMembers = keysAndMembers(lease);
        RedisFuture<Long> sent;
        try {
            sent = open.async().evalsha(release.sha, ScriptOutputType.INTEGER, keysAndMembers[0], keysAndMembers[1]);
        } catch (RedisException e) {
            releaseLater(lease, 0);
            return;
        }
        sent.whenComplete((released, failure) -> {
            if (failure != null) {
                releaseLater(lease, -1); // on the renewal thread at once, with the NOSCRIPT fallback of run()
            }
        });
    }

    /** Gives slots back on its own way, {@link #releaseSoon}: no wait on I/O. */
    @Override
    public boolean releasesInPlace() {
        return true;
    }

    private void releaseNow(SlotLease lease) {
        String[][] keysAndMembers = keysAndMembers(lease);
        run(release, ScriptOutputType.INTEGER, keysAndMembers[0], keysAndMembers[1]);
    }

    /** The release script's keys (the slot sets) and arguments (this lease's member in each). */
    private String[][] keysAndMembers(SlotLease lease) {
        String[] keys = new String[lease.slots().size()];
        String[] members = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = prefix + lease.slots().get(i).key();
            members[i] = slotMember(lease.id(), i);
        }
        return new String[][] {keys, members};
    }

    /**
     * Tries again, in the background, to give back slots Redis could not be told about (0.2 s, then 0.4 s, … up to
     * the lease's TTL); the lease's own expiry remains the last resort. Releasing what Redis never took is harmless.
     */
    private void releaseLater(SlotLease lease, int attempt) {
        // Attempt -1: a release that failed on its way, done again at once (then backing off from 0.2 s).
        long delay = attempt < 0 ? 0 : Math.min(leaseTtlMillis, 200L << Math.min(attempt, 16));
        int step = Math.max(0, attempt);
        if (closed || (step > 0 && (200L << Math.min(step - 1, 16)) >= leaseTtlMillis)) {
            unreleased.remove(lease.id(), lease); // its lease has run out in Redis by now
            return;
        }
        unreleased.put(lease.id(), lease);
        try {
            renewal.schedule(() -> {
                if (unreleased.get(lease.id()) != lease) {
                    return; // given back when Redis answered again
                }
                try {
                    releaseNow(lease);
                    unreleased.remove(lease.id(), lease);
                } catch (Unavailable e) {
                    releaseLater(lease, step + 1);
                }
            }, delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing: the lease expires on its own
        }
    }

    /**
     * Redis answers again: gives back now every slot whose release it missed, rather than at the next step of each
     * one's back-off — after a 15 s outage that was up to 12 s later, and the slots of requests that had ended
     * refused new requests meanwhile (an audit saw a key refused with nothing in flight). Stops at the first failure.
     */
    private void releaseMissed() {
        for (SlotLease lease : unreleased.values()) {
            releaseNow(lease);
            unreleased.remove(lease.id(), lease);
        }
    }

    /** {@link #releaseMissed} in the background, once at a time (a decision found Redis answering). */
    private void releaseMissedSoon() {
        if (!releasingMissed.compareAndSet(false, true)) {
            return;
        }
        try {
            renewal.execute(() -> {
                try {
                    releaseMissed();
                } catch (Unavailable e) {
                    // failing again: their back-off goes on
                } finally {
                    releasingMissed.set(false);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            releasingMissed.set(false); // closing
        }
    }

    /** Leases this instance renews (requests admitted here and still running). */
    public int heldLeases() {
        return held.size();
    }

    /**
     * Stops renewing and closes the connection. Leases still held are left to expire after their TTL: their
     * requests may still be running on their way out, and Redis may be what is failing.
     */
    @Override
    public void close() {
        closed = true;
        renewal.shutdownNow();
        try {
            renewal.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        StatefulRedisConnection<String, String> open = connection;
        if (open != null) {
            open.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        client.getResources().shutdown(0, 2, TimeUnit.SECONDS);
    }

    private QuotaDecision decision(TrafficDemand demand, List<Object> reply, String id) {
        boolean admitted = number(reply, 0) == 1;
        int kind = (int) number(reply, 1);
        Duration wait = Duration.ofMillis(number(reply, 3));
        QuotaDecision.CooldownBlock block = null;
        if (kind == 1) {
            int scope = (int) number(reply, 2);
            block = new QuotaDecision.CooldownBlock(scope > 0 ? demand.cooldownScopes().get(scope - 1)
                    : ((QuotaCheck.Requests) demand.checks().get(-scope - 1)).cooldownScope(), wait, false);
        } else if (kind == 2) {
            block = new QuotaDecision.CooldownBlock(demand.behaviour().scope(), wait, true);
        }
        List<CheckState> states = new ArrayList<>(demand.checks().size());
        for (int i = 0; i < demand.checks().size(); i++) {
            int at = 4 + 3 * i;
            states.add(new CheckState(demand.checks().get(i), number(reply, at),
                    Duration.ofMillis(number(reply, at + 1)), Duration.ofMillis(number(reply, at + 2))));
        }
        SlotLease lease = SlotLease.NONE;
        List<Bucket> slots = demand.slots();
        if (admitted && !slots.isEmpty()) {
            lease = new SlotLease(id, slots);
            held.put(id, lease);
        }
        return new QuotaDecision(states, block, lease);
    }

    private void renewHeldLeases() {
        if (held.isEmpty() || closed) {
            scriptCacheLost.set(false); // nothing runs here that Redis should count
            return;
        }
        boolean restarted = scriptCacheLost.getAndSet(false);
        try {
            renew(held.values(), restarted ? "reinstate" : "renew");
            if (!restarted && scriptCacheLost.getAndSet(false)) { // found out by this very renewal
                restarted = true;
                renew(held.values(), "reinstate");
            }
            if (!unreleased.isEmpty()) {
                releaseMissed();
            }
            if (restarted) {
                LOG.warn("Redis at {} lost its scripts (a restart?): the slots of {} requests still running here "
                        + "were put back", endpoint, held.size());
            }
        } catch (Unavailable e) {
            if (restarted) {
                scriptCacheLost.set(true); // the next renewal tries again
            }
            LOG.warn("Concurrency leases not renewed: {}", e.getMessage());
        } catch (RuntimeException e) {
            // The executor would silently stop renewing for good after an uncaught exception.
            LOG.error("Concurrency leases not renewed", e);
        }
    }

    /**
     * After Redis was unreachable: puts back the slots of the requests that still run, without checking any limit
     * (they run whatever Redis says, so Redis must count them) — this instance's own leases, whose entries may have
     * expired while renewals failed, and {@code adopted} leases that this instance granted alone meanwhile. Those
     * are taken over under ids of this store (unique across instances), then renewed and released like its own.
     *
     * @return the adopted leases as this store now knows them, in the order given
     * @throws Unavailable Redis still does not answer (nothing was taken over)
     */
    @Override
    public List<SlotLease> reinstate(List<SlotLease> adopted) {
        List<SlotLease> taken = new ArrayList<>(adopted.size());
        for (SlotLease lease : adopted) {
            if (!lease.isEmpty()) {
                taken.add(new SlotLease(nextLeaseId("-a-"), lease.slots()));
            }
        }
        taken.forEach(lease -> held.put(lease.id(), lease));
        try {
            renew(held.values(), "reinstate");
        } catch (RuntimeException e) {
            // A command that timed out here may still reach Redis and take the slots under these ids, which nobody
            // would renew or release: 30 s of a concurrency cap held by no request (an audit saw whole caps taken
            // so after an outage). Given back in the background, after it on the same connection.
            taken.forEach(lease -> {
                held.remove(lease.id());
                releaseLater(lease, 0);
            });
            throw e;
        }
        try {
            releaseMissed();
        } catch (Unavailable e) {
            // failing again: their back-off goes on
        }
        return taken;
    }

    @Override
    public void replay(List<Entry> admissions) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        Entry previous = null;
        for (Entry entry : admissions) {
            Entry outer = previous;
            previous = entry;
            if (outer != null && outer.at().equals(entry.at())
                    && nests(outer.bucket(), outer.window(), entry.bucket(), entry.window())) {
                continue; // a nested window's entry: counted through the outer one's, just before it
            }
            keys.add(prefix + entry.bucket().key());
            args.add(Long.toString(entry.at().toEpochMilli()));
            args.add(entry.member());
            args.add(Long.toString(entry.window().toMillis()));
            if (keys.size() >= RENEW_BATCH) {
                replayBatch(replay, keys, args);
            }
        }
        if (!keys.isEmpty()) {
            replayBatch(replay, keys, args);
        }
    }

    @Override
    public void replayCooldowns(List<Cooldown> cooldowns, Instant now) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (Cooldown cooldown : cooldowns) {
            long left = cooldown.until().toEpochMilli() - now.toEpochMilli();
            if (left <= 0) {
                continue;
            }
            keys.add(prefix + cooldown.key());
            args.add(Long.toString(cooldown.until().toEpochMilli()));
            args.add(Long.toString(left));
            if (keys.size() >= RENEW_BATCH) {
                replayBatch(replayCooldowns, keys, args);
            }
        }
        if (!keys.isEmpty()) {
            replayBatch(replayCooldowns, keys, args);
        }
    }

    private void replayBatch(Script script, List<String> keys, List<String> args) {
        run(script, ScriptOutputType.INTEGER, keys.toArray(String[]::new), args.toArray(String[]::new));
        keys.clear();
        args.clear();
    }

    /** Runs renew.lua over {@code leases} in batches of {@value #RENEW_BATCH} slots. */
    private void renew(Iterable<SlotLease> leases, String mode) {
        String expiry = Long.toString(clock.millis() + leaseTtlMillis);
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (SlotLease lease : leases) {
            for (int i = 0; i < lease.slots().size(); i++) {
                keys.add(prefix + lease.slots().get(i).key());
                args.add(slotMember(lease.id(), i));
            }
            if (keys.size() >= RENEW_BATCH) {
                renew(expiry, mode, keys, args);
            }
        }
        if (!keys.isEmpty()) {
            renew(expiry, mode, keys, args);
        }
    }

    private void renew(String expiry, String mode, List<String> keys, List<String> members) {
        List<String> args = new ArrayList<>(members.size() + 3);
        args.add(expiry);
        args.add(leaseTtl);
        args.add(mode);
        args.addAll(members);
        run(renew, ScriptOutputType.INTEGER, keys.toArray(String[]::new), args.toArray(String[]::new));
        keys.clear();
        members.clear();
    }

    private <T> T run(Script script, ScriptOutputType type, String[] keys, String[] args) {
        RedisCommands<String, String> redis = commands();
        try {
            try {
                return redis.evalsha(script.sha, type, keys, args);
            } catch (RedisNoScriptException e) {
                // The server lost its script cache (restart, failover, SCRIPT FLUSH): EVAL caches it again, and
                // the slots of requests still running here are put back at once (a restart loses them too).
                if (scriptCacheLost.compareAndSet(false, true) && script != renew) {
                    try {
                        renewal.execute(this::renewHeldLeases);
                    } catch (java.util.concurrent.RejectedExecutionException closing) {
                        // closing: nothing left to put back
                    }
                }
                return redis.eval(script.body, type, keys, args);
            }
        } catch (RedisException e) {
            throw unavailable("did not answer", e);
        }
    }

    private RedisCommands<String, String> commands() {
        StatefulRedisConnection<String, String> open = connection;
        if (open != null) {
            return open.sync();
        }
        return connectNow(onRequest);
    }

    /** Connects to {@code uri} (its timeout bounds the whole attempt) unless connected, or failed a moment ago. */
    private RedisCommands<String, String> connectNow(RedisURI uri) {
        synchronized (connecting) {
            if (closed) {
                throw new Unavailable("the quota counter for Redis at " + endpoint + " is closed", null);
            }
            if (connection != null) {
                return connection.sync();
            }
            if (connectFailure != null && System.nanoTime() - lastConnectFailure < CONNECT_RETRY_PAUSE_NANOS) {
                throw unavailable("could not be reached a moment ago", connectFailure);
            }
            try {
                StatefulRedisConnection<String, String> opened = client.connect(ExactUtf8Codec.INSTANCE, uri);
                try {
                    loadScripts(opened, uri.getTimeout());
                } catch (RedisException e) {
                    opened.close();
                    throw e;
                }
                connection = opened;
                connectFailure = null;
                return opened.sync();
            } catch (RedisException e) {
                connectFailure = e;
                lastConnectFailure = System.nanoTime();
                throw unavailable("could not be reached", e);
            }
        }
    }

    private void loadScripts(StatefulRedisConnection<String, String> opened, Duration wait) {
        List<Script> scripts = List.of(decide, renew, release, replay, replayCooldowns);
        RedisFuture<?>[] loads = new RedisFuture<?>[scripts.size()];
        for (int i = 0; i < loads.length; i++) {
            loads[i] = opened.async().scriptLoad(scripts.get(i).body);
        }
        if (!LettuceFutures.awaitAll(wait, loads)) {
            throw new RedisCommandTimeoutException("the scripts were not loaded within " + wait.toMillis() + " ms");
        }
    }

    private Unavailable unavailable(String what, RedisException cause) {
        return new Unavailable("Redis at " + endpoint + " " + what + ": " + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : " " + cause.getMessage()), cause);
    }

    /**
     * A lease id unique across instances: this instance's sequence number, least significant digit first (the
     * sorted sets compare members from their first byte, and so tell two of this instance's leases apart at once),
     * {@code tag}, then the instance's random id.
     */
    private String nextLeaseId(String tag) {
        return new StringBuilder(Long.toString(sequence.incrementAndGet(), 36)).reverse().append(tag)
                .append(instance).toString();
    }

        private static String slotMember(String leaseId, int slot) {
        return leaseId + '#' + slot;
    }

    private static long number(List<Object> reply, int index) {
        return (Long) reply.get(index);
    }

    private static RedisURI parse(String redisUri) {
        try {
            if (!hostAndPortReadable(redisUri.strip())) {
                // Lettuce reads "host:notaport" as a host named so (an audit): a host with a port that is no number
                // is no address, and the start-up says so rather than a minute of unreachable-store warnings.
                throw new IllegalArgumentException("no host, or a port that is no number");
            }
            return RedisURI.create(redisUri);
        } catch (RuntimeException e) {
            // The parser's message repeats the URI, password included: neither it nor its cause goes on.
            throw new IllegalArgumentException("REDIS_URI (redis.uri) is not a valid Redis URI, e.g. "
                    + "redis://:password@redis:6379/0 (not repeated here: it may hold a password)");
        }
    }

    /**
     * Whether a {@code redis://} or {@code rediss://} URI names a host, and a port of digits if any (other schemes,
     * such as Sentinel's list of hosts, are left to Lettuce). The user information ends at the authority's last
     * {@code @}, so a password is never read as the host.
     */
    static boolean hostAndPortReadable(String uri) {
        String lower = uri.toLowerCase(java.util.Locale.ROOT);
        int start = lower.startsWith("redis://") ? 8 : lower.startsWith("rediss://") ? 9 : -1;
        if (start < 0) {
            return true;
        }
        int end = start;
        while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
            end++;
        }
        String hostPort = uri.substring(uri.lastIndexOf('@', end - 1) < start ? start
                : uri.lastIndexOf('@', end - 1) + 1, end);
        String port = null;
        if (hostPort.startsWith("[")) { // an IPv6 address
            int close = hostPort.indexOf(']');
            if (close < 2) {
                return false;
            }
            String rest = hostPort.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    return false;
                }
                port = rest.substring(1);
            }
        } else {
            int colon = hostPort.lastIndexOf(':');
            if (colon == 0 || hostPort.isEmpty()) {
                return false;
            }
            if (colon > 0) {
                port = hostPort.substring(colon + 1);
            }
        }
        return port == null || port.matches("[0-9]{1,5}");
    }

    /** The endpoint as scheme, hosts, port and database: never the user or password of the URI. */
    static String describe(RedisURI uri) {
        String database = uri.getDatabase() == 0 ? "" : "/" + uri.getDatabase();
        if (uri.getSocket() != null) {
            return "redis-socket://" + uri.getSocket() + database;
        }
        if (!uri.getSentinels().isEmpty()) {
            return (uri.isSsl() ? "rediss-sentinel://" : "redis-sentinel://")
                    + uri.getSentinels().stream().map(s -> s.getHost() + ':' + s.getPort())
                            .collect(Collectors.joining(","))
                    + database + "#" + uri.getSentinelMasterId();
        }
        return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ':' + uri.getPort() + database;
    }

    private static String randomId() {
        byte[] bytes = new byte[12];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** A Lua script from the classpath with the SHA-1 Redis knows it by. */
    private record Script(String body, String sha) {

        static Script load(String name) {
            try (InputStream in = RedisQuotaCounter.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("missing script " + name);
                }
                String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                return new Script(body, sha1(body));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static String sha1(String body) {
            try {
                return HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-1 is required of every Java platform", e);
            }
        }
    }
}
