package dev.tollgate.application.testing;

import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.KeySpendRepository;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.billing.SpendLimitPolicy;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.SpendWindows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * In-memory fake of {@link BillingLedger} with the port's semantics: a hold atomically checks the key's limit
 * (settled spend in the limit's window, counted in the window the request was admitted in, plus the holds still
 * open in that window) and the account's available balance, then moves the amount from available to reserved;
 * a settlement removes the hold (only the first settlement finds it), charges at most the hold, returns the rest,
 * records the charge against the key in the window of admission and writes one ledger row.
 *
 * <p>Balances and key limits live here (set with {@link #openAccount} and {@link #limitKey}); settled spend goes to
 * the given {@link KeySpendRepository}. Every method runs under one lock, which is what "atomic" means in memory.
 * Observers for tests: {@link #openHold}, {@link #ledgerRow}, {@link #available}, {@link #reserved},
 * {@link #placeHoldCalls()}, {@link #settleCalls()}.
 */
public final class InMemoryBillingLedger implements BillingLedger {

    /** An open hold. */
    public record Hold(String requestId, AccountId accountId, ApiKeyId apiKeyId, Usd amount, Instant admittedAt,
            Instant leaseUntil) {
    }

    /** The one terminal row of a settled request. */
    public record LedgerRow(String requestId, AccountId accountId, ApiKeyId apiKeyId, String model, String provider,
            TokenUsage usage, Usd held, Usd cost, String status, Instant admittedAt, Instant finishedAt,
            boolean streamed, Long latencyMillis) {
    }

    private final KeySpendRepository spend;
    private final Map<AccountId, Usd> available = new HashMap<>();
    private final Map<AccountId, Usd> reserved = new HashMap<>();
    private final Map<ApiKeyId, SpendLimit> limits = new HashMap<>();
    private final Map<String, Hold> holds = new LinkedHashMap<>();
    private final Map<String, Optional<Instant>> leasesNamed = new HashMap<>();
    private final Map<String, LedgerRow> ledger = new LinkedHashMap<>();
    private int placeHoldCalls;
    private int settleCalls;
    private final java.util.List<String> endings = new java.util.ArrayList<>();

    public InMemoryBillingLedger() {
        this(new InMemoryKeySpendRepository());
    }

    public InMemoryBillingLedger(KeySpendRepository spend) {
        this.spend = spend;
    }

    @Override
    public synchronized void ending(String requestId, AccountId account) {
        endings.add(requestId + " " + account.value());
    }

    /** What {@link #ending} was told, "requestId accountId", in order. */
    public synchronized java.util.List<String> endings() {
        return java.util.List.copyOf(endings);
    }

    /** Registers an account with this available balance (or resets its balance). */
    public synchronized void openAccount(AccountId account, Usd balance) {
        available.put(account, balance);
        reserved.putIfAbsent(account, Usd.ZERO);
    }

    /** Gives a key a spend limit ({@code null}: no limit). */
    public synchronized void limitKey(ApiKeyId key, SpendLimit limit) {
        if (limit == null) {
            limits.remove(key);
        } else {
            limits.put(key, limit);
        }
    }

    public KeySpendRepository spend() {
        return spend;
    }

    @Override
    public synchronized HoldOutcome placeHold(HoldRequest hold) {
        placeHoldCalls++;
        if (holds.containsKey(hold.requestId())) { // PostgreSQL: a primary-key violation
            throw new IllegalStateException("request " + hold.requestId() + " already has a hold");
        }
        Usd balance = available.get(hold.accountId());
        if (balance == null) {
            throw new IllegalStateException("account " + hold.accountId() + " is not known to the ledger");
        }
        SpendLimit limit = limits.get(hold.apiKeyId());
        if (limit != null) {
            Usd spent = spend.usageAt(List.of(hold.apiKeyId()), hold.admittedAt()).get(hold.apiKeyId())
                    .countedAgainst(limit);
            Instant windowStart = limit.resetPeriod().map(p -> SpendWindows.windowStart(p, hold.admittedAt()))
                    .orElse(Instant.EPOCH);
            Usd held = Usd.ZERO;
            for (Hold open : holds.values()) {
                if (open.apiKeyId().equals(hold.apiKeyId()) && !open.admittedAt().isBefore(windowStart)) {
                    held = held.plus(open.amount());
                }
            }
            if (!SpendLimitPolicy.allows(limit, spent, held, hold.amount())) {
                return HoldOutcome.KEY_LIMIT_REACHED;
            }
        }
        if (balance.compareTo(hold.amount()) < 0) {
            return HoldOutcome.INSUFFICIENT_BALANCE;
        }
        available.put(hold.accountId(), balance.minusFloorZero(hold.amount()));
        reserved.merge(hold.accountId(), hold.amount(), Usd::plus);
        holds.put(hold.requestId(), new Hold(hold.requestId(), hold.accountId(), hold.apiKeyId(), hold.amount(),
                hold.admittedAt(), hold.leaseUntil()));
        return HoldOutcome.PLACED;
    }

    @Override
    public synchronized boolean settle(Settlement settlement) {
        settleCalls++;
        Hold hold = holds.remove(settlement.requestId());
        if (hold == null) {
            return false;
        }
        if (settlement.holdLeaseUntil() != null && !settlement.holdLeaseUntil().equals(hold.leaseUntil())) {
            throw new IllegalStateException("settlement of " + settlement.requestId() + " names the lease "
                    + settlement.holdLeaseUntil() + ", its hold's is " + hold.leaseUntil());
        }
        leasesNamed.put(settlement.requestId(), Optional.ofNullable(settlement.holdLeaseUntil()));
        Usd charge = settlement.cost().compareTo(hold.amount()) <= 0 ? settlement.cost() : hold.amount();
        reserved.put(hold.accountId(), reserved.get(hold.accountId()).minusFloorZero(hold.amount()));
        available.merge(hold.accountId(), hold.amount().minusFloorZero(charge), Usd::plus);
        if (charge.isPositive()) {
            spend.record(hold.apiKeyId(), charge, hold.admittedAt());
        }
        ledger.putIfAbsent(settlement.requestId(), new LedgerRow(settlement.requestId(), hold.accountId(),
                hold.apiKeyId(), settlement.model(), settlement.provider(), settlement.usage(), hold.amount(), charge,
                settlement.status(), hold.admittedAt(), settlement.finishedAt(), settlement.streamed(),
                settlement.latencyMillis()));
        return true;
    }

    @Override
    public synchronized int releaseExpired(Instant now, int max) {
        List<Hold> expired = new ArrayList<>();
        for (Hold hold : holds.values()) {
            if (hold.leaseUntil().isBefore(now)) {
                expired.add(hold);
            }
        }
        expired.sort(Comparator.comparing(Hold::leaseUntil));
        int released = 0;
        for (Hold hold : expired.subList(0, Math.min(max, expired.size()))) {
            if (settle(new Settlement(hold.requestId(), null, "unknown", null, TokenUsage.NONE, Usd.ZERO, "expired",
                    now, null, null, false))) {
                released++;
            }
        }
        return released;
    }

    public synchronized Optional<Hold> openHold(String requestId) {
        return Optional.ofNullable(holds.get(requestId));
    }

    /** How many holds are open (also the port's {@code openHolds()} where the port declares it). */
    public synchronized long openHolds() {
        return holds.size();
    }

    public synchronized List<Hold> openHoldList() {
        return List.copyOf(holds.values());
    }

    /** The hold lease a request's settlement named (empty: none), or null when it was not settled here. */
    public synchronized Optional<Instant> holdLeaseNamed(String requestId) {
        return leasesNamed.get(requestId);
    }

    public synchronized Optional<LedgerRow> ledgerRow(String requestId) {
        return Optional.ofNullable(ledger.get(requestId));
    }

    public synchronized List<LedgerRow> ledgerRows() {
        return List.copyOf(ledger.values());
    }

    public synchronized Usd available(AccountId account) {
        return available.getOrDefault(account, Usd.ZERO);
    }

    public synchronized Usd reserved(AccountId account) {
        return reserved.getOrDefault(account, Usd.ZERO);
    }

    public synchronized int placeHoldCalls() {
        return placeHoldCalls;
    }

    public synchronized int settleCalls() {
        return settleCalls;
    }
}
