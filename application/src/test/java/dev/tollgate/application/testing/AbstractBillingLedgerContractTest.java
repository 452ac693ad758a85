package dev.tollgate.application.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.application.port.out.BillingLedger;
import dev.tollgate.application.port.out.BillingLedger.HoldOutcome;
import dev.tollgate.domain.account.AccountId;
import dev.tollgate.domain.apikey.ApiKeyId;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.billing.TokenUsage;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.Usd;
import dev.tollgate.domain.spend.KeyUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Contract of {@link BillingLedger} (its Javadoc): a hold atomically checks the key's limit (settled spend plus
 * open holds in the limit's window) and the account's balance and moves the amount from available to reserved;
 * settling charges at most the hold, refunds the rest, counts the charge in the window the request was admitted
 * in and leaves exactly one ledger row, however often it is repeated; expired holds are released at no charge.
 */
public abstract class AbstractBillingLedgerContractTest {

    /** Noon of a Wednesday, far from any daily, weekly or monthly boundary. */
    protected static final Instant NOON = Instant.parse("2026-03-04T12:00:00Z");
    protected static final Duration LEASE = Duration.ofMinutes(15);

    /** An account with one regular key. */
    public record Payer(AccountId accountId, ApiKeyId apiKeyId, KeyHash keyHash) {
    }

    /** The ledger row of a request, as stored. */
    public record Entry(String status, long heldMicros, long costMicros, long promptTokens,
            long completionTokens) {
    }

    protected abstract BillingLedger ledger();

    /** A fresh account whose available balance is {@code balance}, with a key limited by {@code limit} (or not). */
    protected abstract Payer newPayer(Usd balance, SpendLimit limit);

    /** What the account can still spend (its balance less the open holds). */
    protected abstract Usd available(AccountId account);

    /** The sum of the account's open holds. */
    protected abstract Usd reserved(AccountId account);

    /** The key's settled spend in the windows containing {@code at}. */
    protected abstract KeyUsage usage(ApiKeyId key, Instant at);

    protected abstract boolean holdOpen(String requestId);

    /** The request's ledger rows (the contract allows at most one). */
    protected abstract java.util.List<Entry> ledgerRows(String requestId);

    protected static Usd dollars(String amount) {
        return Usd.ofDollars(new java.math.BigDecimal(amount));
    }

    protected static String newRequestId() {
        return "req_" + UUID.randomUUID().toString().replace("-", "");
    }

    protected BillingLedger.HoldRequest hold(Payer payer, String requestId, Usd amount, Instant admittedAt) {
        return new BillingLedger.HoldRequest(requestId, payer.accountId(), payer.apiKeyId(), amount, admittedAt,
                admittedAt.plus(LEASE));
    }

    protected BillingLedger.Settlement settlement(Payer payer, String requestId, Usd cost, Instant at) {
        return new BillingLedger.Settlement(requestId, payer.keyHash(), "test/model", "test-provider",
                new TokenUsage(11, 22), cost, "completed", at, 120L, 30L, false);
    }

    /** Places a hold that must succeed and returns its request id. */
    protected String placed(Payer payer, Usd amount, Instant admittedAt) {
        String requestId = newRequestId();
        assertEquals(HoldOutcome.PLACED, ledger().placeHold(hold(payer, requestId, amount, admittedAt)));
        return requestId;
    }

    private Optional<Entry> onlyRow(String requestId) {
        java.util.List<Entry> rows = ledgerRows(requestId);
        assertTrue(rows.size() <= 1, "at most one ledger row per request: " + rows);
        return rows.stream().findFirst();
    }

    @Test
    public void aHoldMovesItsAmountFromAvailableToReserved() {
        Payer payer = newPayer(dollars("5"), null);
        String requestId = placed(payer, dollars("1.25"), NOON);

        assertEquals(dollars("3.75"), available(payer.accountId()));
        assertEquals(dollars("1.25"), reserved(payer.accountId()));
        assertTrue(holdOpen(requestId));
        assertTrue(ledgerRows(requestId).isEmpty(), "no ledger row before settlement");
    }

    @Test
    public void aHoldOfTheWholeBalanceFitsAndOneMicroMoreDoesNot() {
        Payer payer = newPayer(dollars("2"), null);
        String tooMuch = newRequestId();
        assertEquals(HoldOutcome.INSUFFICIENT_BALANCE,
                ledger().placeHold(hold(payer, tooMuch, Usd.ofMicros(2_000_001), NOON)));
        assertFalse(holdOpen(tooMuch));

        placed(payer, dollars("2"), NOON);
        assertEquals(Usd.ZERO, available(payer.accountId()));
        assertEquals(HoldOutcome.INSUFFICIENT_BALANCE,
                ledger().placeHold(hold(payer, newRequestId(), Usd.ofMicros(1), NOON)));
    }

    @Test
    public void anInsufficientBalanceLeavesEverythingUnchanged() {
        Payer payer = newPayer(dollars("1"), SpendLimit.lifetime(dollars("50")));
        String first = placed(payer, dollars("0.4"), NOON);
        String refused = newRequestId();

        assertEquals(HoldOutcome.INSUFFICIENT_BALANCE, ledger().placeHold(hold(payer, refused, Usd.ofMicros(600_001),
                NOON)));

        assertEquals(dollars("0.6"), available(payer.accountId()));
        assertEquals(dollars("0.4"), reserved(payer.accountId()));
        assertFalse(holdOpen(refused));
        assertTrue(holdOpen(first));
        assertTrue(ledgerRows(refused).isEmpty());
        assertEquals(KeyUsage.NONE, usage(payer.apiKeyId(), NOON));
        // The refused request holds nothing back: exactly the rest still fits.
        placed(payer, dollars("0.6"), NOON);
    }

    @Test
    public void aZeroHoldFitsAnEmptyBalance() {
        Payer payer = newPayer(Usd.ZERO, null);
        String requestId = placed(payer, Usd.ZERO, NOON);

        assertTrue(ledger().settle(settlement(payer, requestId, Usd.ZERO, NOON)));
        assertEquals(Usd.ZERO, available(payer.accountId()));
        assertEquals(new Entry("completed", 0, 0, 11, 22), onlyRow(requestId).orElseThrow());
    }

    @Test
    public void theKeyLimitCountsOpenHoldsAndSettledSpend() {
        Payer payer = newPayer(dollars("100"), SpendLimit.lifetime(dollars("1")));
        String first = placed(payer, dollars("0.6"), NOON);

        // 0.6 open + 0.5 > 1: the open hold counts.
        assertEquals(HoldOutcome.KEY_LIMIT_REACHED,
                ledger().placeHold(hold(payer, newRequestId(), dollars("0.5"), NOON)));
        assertEquals(dollars("99.4"), available(payer.accountId()), "a refused hold moves no money");

        assertTrue(ledger().settle(settlement(payer, first, dollars("0.45"), NOON)));
        // 0.45 settled + 0.55 = exactly the limit.
        String second = placed(payer, dollars("0.55"), NOON);
        // Settled 0.45 + open 0.55 + 0.000001 > 1: settled spend counts too.
        assertEquals(HoldOutcome.KEY_LIMIT_REACHED,
                ledger().placeHold(hold(payer, newRequestId(), Usd.ofMicros(1), NOON)));

        // Releasing the open hold at no charge frees exactly its amount.
        assertTrue(ledger().settle(settlement(payer, second, Usd.ZERO, NOON)));
        placed(payer, dollars("0.55"), NOON);
    }

    @Test
    public void aKeyWithoutLimitIsBoundOnlyByTheBalance() {
        Payer payer = newPayer(dollars("3"), null);
        placed(payer, dollars("1"), NOON);
        placed(payer, dollars("2"), NOON);
        assertEquals(HoldOutcome.INSUFFICIENT_BALANCE,
                ledger().placeHold(hold(payer, newRequestId(), Usd.ofMicros(1), NOON)));
    }

    @Test
    public void keysOfOneAccountShareItsBalanceButNotTheirLimits() {
        Payer a = newPayer(dollars("1"), SpendLimit.lifetime(dollars("0.7")));
        placed(a, dollars("0.7"), NOON);
        assertEquals(HoldOutcome.KEY_LIMIT_REACHED, ledger().placeHold(hold(a, newRequestId(), dollars("0.1"), NOON)));
        // A second payer with its own account and limit is unaffected by the first key's spend.
        Payer b = newPayer(dollars("1"), SpendLimit.lifetime(dollars("0.7")));
        placed(b, dollars("0.7"), NOON);
    }

    @Test
    public void aDailyLimitCountsOnlyTheDayOfAdmission() {
        Payer payer = newPayer(dollars("100"), new SpendLimit(dollars("1"), LimitReset.DAILY));
        Instant yesterday = Instant.parse("2026-03-03T23:59:59.999Z");
        Instant today = Instant.parse("2026-03-04T00:00:00Z");
        String settledYesterday = placed(payer, dollars("0.5"), yesterday);
        assertTrue(ledger().settle(settlement(payer, settledYesterday, dollars("0.5"), today)));
        placed(payer, dollars("0.5"), yesterday); // still open, but admitted yesterday

        // Neither yesterday's spend nor yesterday's open hold count against today's window.
        String full = placed(payer, dollars("1"), today);
        assertTrue(holdOpen(full));
        assertEquals(HoldOutcome.KEY_LIMIT_REACHED,
                ledger().placeHold(hold(payer, newRequestId(), Usd.ofMicros(1), today)));
    }

    @Test
    public void settlingChargesTheCostAndRefundsTheRest() {
        Payer payer = newPayer(dollars("10"), null);
        String requestId = placed(payer, dollars("2"), NOON);

        assertTrue(ledger().settle(settlement(payer, requestId, Usd.ofMicros(123_457), NOON.plusSeconds(3))));

        assertEquals(Usd.ofMicros(10_000_000 - 123_457), available(payer.accountId()));
        assertEquals(Usd.ZERO, reserved(payer.accountId()));
        assertFalse(holdOpen(requestId));
        assertEquals(new Entry("completed", 2_000_000, 123_457, 11, 22), onlyRow(requestId).orElseThrow());
        KeyUsage usage = usage(payer.apiKeyId(), NOON);
        assertEquals(Usd.ofMicros(123_457), usage.total());
        assertEquals(Usd.ofMicros(123_457), usage.daily());
        assertEquals(Usd.ofMicros(123_457), usage.weekly());
        assertEquals(Usd.ofMicros(123_457), usage.monthly());
    }

    @Test
    public void aChargeNeverExceedsTheHold() {
        Payer payer = newPayer(dollars("10"), SpendLimit.lifetime(dollars("1")));
        String requestId = placed(payer, dollars("1"), NOON);

        assertTrue(ledger().settle(settlement(payer, requestId, dollars("7"), NOON)));

        assertEquals(dollars("9"), available(payer.accountId()));
        assertEquals(1_000_000, onlyRow(requestId).orElseThrow().costMicros());
        assertEquals(dollars("1"), usage(payer.apiKeyId(), NOON).total());
    }

    @Test
    public void settlingIsIdempotent() {
        Payer payer = newPayer(dollars("10"), null);
        String requestId = placed(payer, dollars("1"), NOON);

        assertTrue(ledger().settle(settlement(payer, requestId, dollars("0.25"), NOON)));
        assertFalse(ledger().settle(settlement(payer, requestId, dollars("0.25"), NOON)), "second settle is a no-op");
        assertFalse(ledger().settle(new BillingLedger.Settlement(requestId, payer.keyHash(), "other", "other",
                TokenUsage.NONE, Usd.ZERO, "cancelled", NOON, null, null, true)), "whatever it says");

        assertEquals(dollars("9.75"), available(payer.accountId()), "refunded once, charged once");
        assertEquals(Usd.ZERO, reserved(payer.accountId()));
        assertEquals(dollars("0.25"), usage(payer.apiKeyId(), NOON).total(), "spend recorded once");
        assertEquals(1, ledgerRows(requestId).size());
        assertEquals("completed", ledgerRows(requestId).get(0).status(), "the first settlement's row stays");
    }

    @Test
    public void settlingAnUnknownRequestDoesNothing() {
        Payer payer = newPayer(dollars("1"), null);
        String unknown = newRequestId();
        assertFalse(ledger().settle(settlement(payer, unknown, dollars("0.5"), NOON)));
        assertEquals(dollars("1"), available(payer.accountId()));
        assertTrue(ledgerRows(unknown).isEmpty());
    }

    @Test
    public void aFreeSettlementRefundsEverythingAndRecordsNoSpend() {
        Payer payer = newPayer(dollars("1"), SpendLimit.lifetime(dollars("1")));
        String requestId = placed(payer, dollars("0.8"), NOON);
        assertTrue(ledger().settle(new BillingLedger.Settlement(requestId, payer.keyHash(), "test/model",
                "test-provider", new TokenUsage(9, 0), Usd.ZERO, "failed", NOON, 5L, null, true)));

        assertEquals(dollars("1"), available(payer.accountId()));
        assertEquals(KeyUsage.NONE, usage(payer.apiKeyId(), NOON));
        assertEquals(new Entry("failed", 800_000, 0, 9, 0), onlyRow(requestId).orElseThrow());
    }

    @Test
    public void theChargeCountsInTheWindowOfAdmissionEvenWhenSettledInTheNext() {
        Payer payer = newPayer(dollars("10"), new SpendLimit(dollars("1"), LimitReset.DAILY));
        Instant admitted = Instant.parse("2026-03-04T23:59:59.900Z");
        Instant settled = Instant.parse("2026-03-05T00:00:00.100Z");
        String requestId = placed(payer, dollars("0.9"), admitted);

        assertTrue(ledger().settle(settlement(payer, requestId, dollars("0.9"), settled)));

        assertEquals(dollars("0.9"), usage(payer.apiKeyId(), admitted).daily());
        assertEquals(Usd.ZERO, usage(payer.apiKeyId(), settled).daily(), "nothing in the day it was settled");
        assertEquals(dollars("0.9"), usage(payer.apiKeyId(), settled).total());
        // The new day starts with the full limit.
        placed(payer, dollars("1"), settled);
    }

    @Test
    public void expiredHoldsAreReleasedAtNoCharge() {
        // Years before every other test's holds, so that a shared store's sweep finds only this test's holds.
        Instant base = Instant.parse("2021-06-01T12:00:00Z");
        Payer payer = newPayer(dollars("10"), SpendLimit.lifetime(dollars("5")));
        String old = placed(payer, dollars("1"), base);                                 // lease ends base+15m
        String older = placed(payer, dollars("2"), base.minus(Duration.ofMinutes(5)));  // lease ends base+10m
        String fresh = placed(payer, dollars("0.5"), base.plus(Duration.ofMinutes(10))); // lease ends base+25m

        assertEquals(0, ledger().releaseExpired(base.plus(Duration.ofMinutes(10)), 100),
                "a lease that ends exactly now has not run out");
        Instant sweep = base.plus(LEASE).plusMillis(1);
        assertEquals(2, ledger().releaseExpired(sweep, 100));

        assertFalse(holdOpen(old));
        assertFalse(holdOpen(older));
        assertTrue(holdOpen(fresh));
        assertEquals("expired", onlyRow(old).orElseThrow().status());
        assertEquals(0, onlyRow(old).orElseThrow().costMicros());
        assertEquals(1_000_000, onlyRow(old).orElseThrow().heldMicros());
        assertEquals("expired", onlyRow(older).orElseThrow().status());
        assertEquals(0, onlyRow(older).orElseThrow().costMicros());
        assertEquals(dollars("9.5"), available(payer.accountId()));
        assertEquals(dollars("0.5"), reserved(payer.accountId()));
        assertEquals(KeyUsage.NONE, usage(payer.apiKeyId(), base));

        // A late settlement of a released request is a no-op; a second sweep finds nothing.
        assertFalse(ledger().settle(settlement(payer, old, dollars("1"), sweep)));
        assertEquals(dollars("9.5"), available(payer.accountId()));
        assertEquals(0, ledger().releaseExpired(sweep, 100));

        assertTrue(ledger().settle(settlement(payer, fresh, dollars("0.5"), sweep)));
        assertEquals(dollars("9.5"), available(payer.accountId()));
        assertEquals(Usd.ZERO, reserved(payer.accountId()));
    }

    @Test
    public void releaseExpiredTakesAtMostTheBatchSizeOldestFirst() {
        Instant base = Instant.parse("2022-06-01T12:00:00Z");
        Payer payer = newPayer(dollars("10"), null);
        String first = placed(payer, dollars("0.1"), base.minusSeconds(30));
        String second = placed(payer, dollars("0.1"), base.minusSeconds(20));
        String third = placed(payer, dollars("0.1"), base.minusSeconds(10));
        Instant later = base.plus(LEASE).plusSeconds(1);

        assertEquals(2, ledger().releaseExpired(later, 2));
        assertFalse(holdOpen(first));
        assertFalse(holdOpen(second));
        assertTrue(holdOpen(third));
        assertEquals(1, ledger().releaseExpired(later, 2));
        assertFalse(holdOpen(third));
        assertEquals(dollars("10"), available(payer.accountId()));
        assertEquals(Usd.ZERO, reserved(payer.accountId()));
    }
}
