package dev.tollgate.domain.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.domain.completion.ChatMessage;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TrafficRulesTest {

    private final TrafficRules rules = new TrafficRules(TrafficLimits.DEFAULTS);
    private final TrafficRules.Caller caller = new TrafficRules.Caller("key-1", "acct-1", "203.0.113.9");
    private final TrafficRules.Shape shape = new TrafficRules.Shape("m", 1_234,
            PromptFingerprint.of(List.of(new ChatMessage("user", "hello there friend", "{}"))), 100);

    private static Map<String, QuotaCheck> byKey(TrafficDemand demand) {
        return demand.checks().stream().collect(Collectors.toMap(c -> c.bucket().key(), c -> c));
    }

    @Test
    void everyBurstWindowComesRightAfterItsSubjectsMinuteWindow() {
        for (TrafficDemand demand : List.of(rules.modelRequest(caller, shape), rules.modelRequest(caller, null),
                rules.userPlayground(caller, shape))) {
            List<QuotaCheck> checks = demand.checks();
            int pairs = 0;
            for (int i = 0; i < checks.size(); i++) {
                if (checks.get(i) instanceof QuotaCheck.Requests r && r.bucket().rule().equals("burst")) {
                    QuotaCheck.Requests minute = (QuotaCheck.Requests) checks.get(i - 1);
                    assertEquals(r.bucket().withRule(minute.bucket().rule()), minute.bucket());
                    assertTrue(minute.window().compareTo(r.window()) >= 0);
                    pairs++;
                }
            }
            assertEquals(4, pairs, "key, key+IP, account and IP: " + checks);
            assertEquals(8, checks.stream().filter(c -> c instanceof QuotaCheck.Requests
                    && c.bucket().scope() != LimitScope.PLAYGROUND).count(), "no request window without its pair");
        }
    }

    @Test
    void aCompletionIsCountedInEveryBucketOfTheSpecTable() {
        Map<String, QuotaCheck> checks = byKey(rules.modelRequest(caller, shape));
        assertRequests(checks.get("key:rpm:key-1"), 600, Duration.ofMinutes(1));
        assertRequests(checks.get("key:burst:key-1"), 200, Duration.ofSeconds(10));
        assertRequests(checks.get("key_ip:rpm:key-1@203.0.113.9"), 600, Duration.ofMinutes(1));
        assertRequests(checks.get("key_ip:burst:key-1@203.0.113.9"), 200, Duration.ofSeconds(10));
        assertRequests(checks.get("account:rpm:acct-1"), 3_000, Duration.ofMinutes(1));
        assertRequests(checks.get("account:burst:acct-1"), 1_000, Duration.ofSeconds(10));
        assertRequests(checks.get("ip:rpm:203.0.113.9"), 3_000, Duration.ofMinutes(1));
        assertRequests(checks.get("ip:burst:203.0.113.9"), 1_000, Duration.ofSeconds(10));
        assertEquals(50, checks.get("key:inflight:key-1").limit());
        assertEquals(200, checks.get("account:inflight:acct-1").limit());
        QuotaCheck.Distinct ips = (QuotaCheck.Distinct) checks.get("key:ips:key-1");
        assertEquals(200, ips.limit());
        assertEquals("203.0.113.9", ips.member());
        assertEquals(Duration.ofHours(1), ips.window());
        QuotaCheck.Distinct keys = (QuotaCheck.Distinct) checks.get("ip:keys:203.0.113.9");
        assertEquals("key-1", keys.member());
        assertEquals(200, keys.limit());
        for (String tokens : List.of("key:tpm:key-1", "key_ip:tpm:key-1@203.0.113.9")) {
            QuotaCheck.Tokens t = (QuotaCheck.Tokens) checks.get(tokens);
            assertEquals(2_000_000, t.limit());
            assertEquals(1_234, t.tokens());
            assertFalse(t.blocking(), "§8.1 token windows only report");
        }
        assertEquals(10_000_000, checks.get("account:tpm:acct-1").limit());
        assertEquals(10_000_000, checks.get("ip:tpm:203.0.113.9").limit());
        assertEquals(16, checks.size());
    }

    private static void assertRequests(QuotaCheck check, long limit, Duration window) {
        assertNotNull(check);
        QuotaCheck.Requests requests = (QuotaCheck.Requests) check;
        assertEquals(limit, requests.limit());
        assertEquals(window, requests.window());
    }

    @Test
    void requestLimitBlocksOfKeyIpKeyAndAccountLeadToTheirCooldowns() {
        TrafficDemand demand = rules.modelRequest(caller, shape);
        Set<String> scopes = demand.cooldownScopes().stream().map(Bucket::key).collect(Collectors.toSet());
        assertEquals(Set.of("key_ip:rpm:key-1@203.0.113.9", "key:rpm:key-1", "account:rpm:acct-1"), scopes);
        for (QuotaCheck check : demand.checks()) {
            if (check instanceof QuotaCheck.Requests r) {
                boolean ipBucket = r.bucket().scope() == LimitScope.IP;
                assertEquals(ipBucket, r.cooldownScope() == null, "no cooldown of the IP scope: " + r.bucket());
            }
        }
        assertEquals(LimitScope.KEY_IP_MODEL, demand.behaviour().scope().scope());
        assertEquals(CooldownRule.DEFAULT, demand.cooldown());
    }

    @Test
    void theModelListCountsRequestsOnly() {
        TrafficDemand demand = rules.modelRequest(caller, null);
        assertTrue(demand.slots().isEmpty());
        assertNull(demand.behaviour());
        assertTrue(demand.checks().stream().noneMatch(c -> c instanceof QuotaCheck.Tokens));
        assertEquals(10, demand.checks().size());
    }

    @Test
    void theAnonymousPlaygroundHasItsOwnLimits() {
        TrafficDemand demand = rules.anonymousPlayground("browser-1", "198.51.100.4", 5_000);
        Map<String, QuotaCheck> checks = byKey(demand);
        assertRequests(checks.get("principal:rpm:browser-1"), 20, Duration.ofMinutes(1));
        assertRequests(checks.get("principal:rph:browser-1"), 50, Duration.ofHours(1));
        assertRequests(checks.get("playground_ip:rpm:198.51.100.4"), 20, Duration.ofMinutes(1));
        assertRequests(checks.get("playground_ip:rph:198.51.100.4"), 50, Duration.ofHours(1));
        assertRequests(checks.get("playground:rpm:all"), 10_000, Duration.ofMinutes(1));
        assertEquals(2, checks.get("principal:inflight:browser-1").limit());
        assertEquals(2, checks.get("playground_ip:inflight:198.51.100.4").limit(),
                "a client dropping its cookie runs no more streams than one keeping it");
        assertEquals(1_000, checks.get("playground:inflight:all").limit());
        QuotaCheck.Tokens tokens = (QuotaCheck.Tokens) checks.get("playground:tpm:all");
        assertEquals(10_000_000, tokens.limit());
        assertTrue(tokens.blocking(), "the operator pays: the global token budget refuses");
        assertTrue(demand.cooldownScopes().isEmpty());
    }

    @Test
    void theUserBilledPlaygroundAddsFourSlotsPerPrincipal() {
        TrafficDemand demand = rules.userPlayground(caller, shape);
        Map<String, QuotaCheck> checks = byKey(demand);
        assertEquals(4, checks.get("principal:inflight:key:key-1").limit());
        assertEquals(50, checks.get("key:inflight:key-1").limit(), "the /v1 buckets apply too");
        // It is public playground traffic: counted in the caps of all of it, the same buckets anonymous requests use.
        Map<String, QuotaCheck> anonymous = byKey(rules.anonymousPlayground("p", "198.51.100.7", 10));
        for (String all : List.of("playground:rpm:all", "playground:inflight:all", "playground:tpm:all")) {
            assertEquals(anonymous.get(all).limit(), checks.get(all).limit(), all);
        }
        assertEquals(10_000, checks.get("playground:rpm:all").limit());
        assertEquals(1_000, checks.get("playground:inflight:all").limit());
        QuotaCheck.Tokens tokens = (QuotaCheck.Tokens) checks.get("playground:tpm:all");
        assertEquals(1_234, tokens.tokens());
        assertTrue(tokens.blocking());
        assertEquals(20, checks.size());
    }

    @Test
    void everyBucketOfADemandIsDistinct() {
        TrafficDemand demand = rules.userPlayground(caller, shape);
        Set<String> keys = new HashSet<>();
        demand.checks().forEach(c -> assertTrue(keys.add(c.bucket().key()), "twice: " + c.bucket().key()));
    }

    @Test
    void aShareDividesEveryLimitAndKeepsAtLeastOne() {
        TrafficDemand shared = rules.modelRequest(caller, shape).shareOf(3);
        Map<String, QuotaCheck> checks = byKey(shared);
        assertEquals(200, checks.get("key:rpm:key-1").limit());
        assertEquals(66, checks.get("key:burst:key-1").limit());
        assertEquals(16, checks.get("key:inflight:key-1").limit());
        assertEquals(1, rules.anonymousPlayground("p", "ip", 1).shareOf(3).checks().stream()
                .filter(c -> c.bucket().key().equals("principal:inflight:p")).findFirst().orElseThrow().limit());
        assertThrows(IllegalArgumentException.class, () -> shared.shareOf(0));
    }

    @Test
    void aFailurePolicyFailsClosedOnlyForTheKindsItNames() {
        TrafficDemand list = rules.modelRequest(caller, null);
        StoreFailurePolicy closedSlots = new StoreFailurePolicy(StoreFailurePolicy.Mode.LOCAL,
                StoreFailurePolicy.Mode.CLOSED, StoreFailurePolicy.Mode.LOCAL, StoreFailurePolicy.Mode.LOCAL,
                StoreFailurePolicy.Mode.LOCAL);
        assertFalse(closedSlots.failsClosed(list), "the model list takes no slot");
        assertTrue(closedSlots.failsClosed(rules.modelRequest(caller, shape)));
        assertFalse(StoreFailurePolicy.LOCAL_SHARE.failsClosed(rules.modelRequest(caller, shape)));
    }

    @Test
    void limitsMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new TrafficLimits.RequestRate(0, 10));
        assertThrows(IllegalArgumentException.class, () -> new TrafficLimits.PlaygroundLimits(20, 50, 0, 1, 1, 1, 1));
    }
}
