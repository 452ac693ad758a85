package dev.tollgate.application.port.in.traffic;

import java.util.Objects;

/**
 * Where a request comes from, as the inbound adapter resolved it: the source IP (the peer, or a trusted proxy's
 * forwarded address; IPv6 cut to its network prefix) and, on the public playground, the browser principal.
 */
public record TrafficOrigin(String sourceIp, String browserPrincipal) {

    public TrafficOrigin {
        Objects.requireNonNull(sourceIp, "source IP");
        if (sourceIp.isBlank()) {
            throw new IllegalArgumentException("source IP must not be blank");
        }
    }

    public static TrafficOrigin of(String sourceIp) {
        return new TrafficOrigin(sourceIp, null);
    }
}
