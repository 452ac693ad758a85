package dev.tollgate.adapter.in.http.dashboard;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The outbox answers only a Host that names this machine's loopback: a DNS-rebound page sends its own name. */
class OutboxControllerTest {

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "localhost:8080", "LOCALHOST:8080", "localhost.", "localhost.:8080",
            "app.localhost:8080", "127.0.0.1", "127.0.0.1:8080", "127.1.2.3:41045", "127.255.255.255", "[::1]",
            "[::1]:8080", "[0:0:0:0:0:0:0:1]:8080", "[::ffff:127.0.0.1]:8080", " localhost:8080 "})
    void loopbackNamesAreThisMachine(String host) {
        assertTrue(OutboxController.loopbackHost(host), host);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "attacker.example", "attacker.example:8080", "localhost.attacker.example",
            "127.0.0.1.attacker.example", "127.0.0.1.nip.io:8080", "notlocalhost", "10.0.0.1:8080", "0.0.0.0:8080",
            "127.0.0.256", "127.0.0", "127.00.0.1x", "[::2]:8080", "[::1", "[::1]x", "[fe80::1]", "[abc]",
            "[localhost]", "192.168.1.20:8080"})
    void otherNamesAreNot(String host) {
        assertFalse(OutboxController.loopbackHost(host), host);
    }

    @Test
    void aRequestWithoutHostIsLetThrough() {
        assertTrue(OutboxController.loopbackHost(null), "HTTP/1.0 without Host; no browser sends that");
    }
}
