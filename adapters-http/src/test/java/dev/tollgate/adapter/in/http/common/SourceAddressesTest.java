package dev.tollgate.adapter.in.http.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.simple.SimpleHttpRequest;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourceAddressesTest {

    private static HttpRequest<?> from(String peer, String... headers) {
        MutableHttpRequest<Object> request = new SimpleHttpRequest<>(io.micronaut.http.HttpMethod.POST, "/v1/x", null) {
            @Override
            public InetSocketAddress getRemoteAddress() {
                return new InetSocketAddress(peer, 40000);
            }
        };
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return request;
    }

    private static SourceAddresses trusting(String... cidrs) {
        return new SourceAddresses(List.of(cidrs), 64);
    }

    @Test
    void withoutTrustedProxiesThePeerIsTheSourceWhateverTheHeadersSay() {
        SourceAddresses sources = trusting();
        assertEquals("203.0.113.5", sources.sourceOf(from("203.0.113.5", "X-Forwarded-For", "198.51.100.1",
                "Forwarded", "for=198.51.100.2")));
    }

    @Test
    void aTrustedProxysChainIsReadFromTheRightSkippingTrustedHops() {
        SourceAddresses sources = trusting("10.0.0.0/8", "127.0.0.1");
        assertEquals("198.51.100.7", sources.sourceOf(from("10.1.2.3",
                "X-Forwarded-For", "1.1.1.1, 198.51.100.7, 10.9.9.9")), "the spoofable left part is ignored");
        assertEquals("198.51.100.8", sources.sourceOf(from("127.0.0.1",
                "X-Forwarded-For", "198.51.100.8:5123")), "a port is dropped");
        assertEquals("10.1.2.3", sources.sourceOf(from("10.1.2.3")), "no header: the proxy itself");
        assertEquals("10.5.5.5", sources.sourceOf(from("10.1.2.3", "X-Forwarded-For", "10.5.5.5, 10.4.4.4")),
                "all hops trusted: the farthest one");
        assertEquals("10.9.9.9", sources.sourceOf(from("10.1.2.3",
                "X-Forwarded-For", "198.51.100.1, unknown, 10.9.9.9")), "an unreadable hop ends the walk");
        assertEquals("10.1.2.3", sources.sourceOf(from("10.1.2.3", "X-Forwarded-For", "evil.example.com")),
                "host names are never looked up");
    }

    @Test
    void onlyTheHeaderTheProxiesWriteIsRead() {
        // A proxy appends the client to its own header and passes the other one on as the client sent it.
        SourceAddresses xff = trusting("10.0.0.0/8");
        assertEquals("198.51.100.9", xff.sourceOf(from("10.0.0.1", "Forwarded", "for=192.0.2.60",
                "X-Forwarded-For", "198.51.100.9")), "a client's own Forwarded header chooses nothing");
        assertEquals("10.0.0.1", xff.sourceOf(from("10.0.0.1", "Forwarded", "for=192.0.2.60")));

        SourceAddresses rfc7239 = new SourceAddresses(List.of("10.0.0.0/8"), 64, "Forwarded");
        assertEquals("2001:db8:1:2:0:0:0:0/64", rfc7239.sourceOf(from("10.0.0.1",
                "Forwarded", "for=192.0.2.60;proto=http, for=\"[2001:db8:1:2::17]:4711\"",
                "X-Forwarded-For", "198.51.100.9")), "quoted, bracketed, with a port; X-Forwarded-For ignored");
        assertEquals("10.0.0.1", rfc7239.sourceOf(from("10.0.0.1", "X-Forwarded-For", "198.51.100.9")));

        // An audit (2026-11-29): a proxy that quotes a value the client chose (its Host) in its own element.
        assertEquals("198.51.100.1", rfc7239.sourceOf(from("10.0.0.1",
                "Forwarded", "for=198.51.100.1;host=\"a,for=9.9.9.9;x=\"")), "a comma inside quotes separates nothing");
        assertEquals("198.51.100.1", rfc7239.sourceOf(from("10.0.0.1",
                "Forwarded", "for=\"198.51.100.1\";host=\"a\\\",for=9.9.9.9\"")), "nor an escaped quote's neighbour");
    }

    @Test
    void forwardedElementsAreSplitOutsideQuotedStringsOnly() {
        assertEquals(List.of("192.0.2.60", "[2001:db8::17]:4711", ""),
                SourceAddresses.forwardedHops("for=192.0.2.60;proto=http, For=\"[2001:db8::17]:4711\" ,by=10.0.0.1"));
        assertEquals(List.of("198.51.100.1"), SourceAddresses.forwardedHops("host=\"x;for=1.2.3.4\";for=198.51.100.1"));
        assertEquals(List.of("192.0.2.1", ""), SourceAddresses.forwardedHops("for=192.0.2.1, for=\"10.0.0.1"),
                "a quoted string that never closes makes its element unreadable");
        assertEquals(List.of("", ""), SourceAddresses.forwardedHops(","));
        assertEquals(List.of(""), SourceAddresses.forwardedHops(""));

        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
                () -> new SourceAddresses(List.of(), 64, "x-real-ip"));
        assertTrue(wrong.getMessage().contains("TOLLGATE_HTTP_FORWARDED_HEADER"), wrong.getMessage());
    }

    @Test
    void ipv6SourcesAreCountedPerPrefixAndMappedIpv4AsIpv4() {
        SourceAddresses sources = trusting();
        assertEquals("2001:db8:aa:bb:0:0:0:0/64", sources.sourceOf(from("2001:db8:aa:bb:1:2:3:4")));
        assertEquals("2001:db8:aa:bb:0:0:0:0/64", sources.sourceOf(from("2001:db8:aa:bb:ffff:2:3:4")));
        assertEquals("2001:db8:aa:0:0:0:0:0/48",
                new SourceAddresses(List.of(), 48).sourceOf(from("2001:db8:aa:bb:1:2:3:4")));
        assertEquals("192.0.2.1", sources.sourceOf(from("::ffff:192.0.2.1")));
    }

    @Test
    void trustedRangesMatchByPrefix() {
        SourceAddresses.Cidr net = SourceAddresses.Cidr.parse("192.168.4.0/22");
        assertEquals(true, net.contains(SourceAddresses.parseAddress("192.168.7.255")));
        assertEquals(false, net.contains(SourceAddresses.parseAddress("192.168.8.0")));
        assertEquals(true, SourceAddresses.Cidr.parse("::1").contains(SourceAddresses.parseAddress("[::1]")));
        assertEquals(false, SourceAddresses.Cidr.parse("::1/128").contains(SourceAddresses.parseAddress("127.0.0.1")));
        assertNull(SourceAddresses.parseAddress("300.1.1.1"));
        assertNull(SourceAddresses.parseAddress("_hidden"));
        assertThrows(IllegalArgumentException.class, () -> trusting("10.0.0.0/33"));
        assertThrows(IllegalArgumentException.class, () -> trusting("proxy.internal"));
    }
}
