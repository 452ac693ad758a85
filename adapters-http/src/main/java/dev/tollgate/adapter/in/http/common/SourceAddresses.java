package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * HTTP adapter: who is limited by source IP (§8.1). The source is the TCP peer — unless the peer is one of the
 * configured trusted proxies, in which case the forwarded chain is read from the right, skipping trusted hops, and
 * the first untrusted address is the client (as Envoy's {@code use_remote_address} with trusted hops). The chain is
 * the one header the operator's proxies write ({@code X-Forwarded-For} by default, or RFC 7239 {@code Forwarded}),
 * never the other: a proxy appends the client to its own header and passes the other through as the client sent
 * it, so reading that one would let clients choose their address. A header from an untrusted peer changes nothing.
 * IPv6 sources are counted per network prefix ({@code /64} by default): one host owns a whole prefix.
 */
@Singleton
public final class SourceAddresses {

    private static final String ATTRIBUTE = "tollgate.source-ip";
    private static final String TRUSTED_PROXIES = "TOLLGATE_HTTP_TRUSTED_PROXIES (tollgate.http.trusted-proxies)";

    private final List<Cidr> trusted;
    private final int ipv6Prefix;
    /** Whether the chain is RFC 7239 {@code Forwarded} ({@code for=}) rather than {@code X-Forwarded-For}. */
    private final boolean rfc7239;

    /** Reading {@code X-Forwarded-For} from the trusted proxies. */
    public SourceAddresses(List<String> trustedProxies, int ipv6Prefix) {
        this(trustedProxies, ipv6Prefix, "x-forwarded-for");
    }

    @Inject
    public SourceAddresses(@Value("${tollgate.http.trusted-proxies:}") List<String> trustedProxies,
            @Value("${tollgate.http.ipv6-prefix-length:64}") int ipv6Prefix,
            @Value("${tollgate.http.forwarded-header:x-forwarded-for}") String forwardedHeader) {
        if (ipv6Prefix < 1 || ipv6Prefix > 128) {
            throw new IllegalArgumentException("tollgate.http.ipv6-prefix-length must be 1..128, was " + ipv6Prefix);
        }
        String header = forwardedHeader.strip().toLowerCase(Locale.ROOT);
        if (!header.equals("x-forwarded-for") && !header.equals("forwarded")) {
            throw new IllegalArgumentException("TOLLGATE_HTTP_FORWARDED_HEADER must be x-forwarded-for or forwarded "
                    + "(the header your trusted proxies write), was '" + forwardedHeader + "'");
        }
        this.rfc7239 = header.equals("forwarded");
        List<Cidr> cidrs = new ArrayList<>();
        for (String entry : trustedProxies) {
            if (!entry.isBlank()) {
                cidrs.add(Cidr.parse(entry.trim()));
            }
        }
        this.trusted = List.copyOf(cidrs);
        this.ipv6Prefix = ipv6Prefix;
    }

    /** The request's source as counted by the IP buckets, e.g. {@code 203.0.113.7} or {@code 2001:db8:1:2::/64}. */
    public String sourceOf(HttpRequest<?> request) {
        return request.getAttribute(ATTRIBUTE, String.class).orElseGet(() -> {
            InetAddress peer = request.getRemoteAddress().getAddress();
            String source = peer == null ? "unknown" : bucketName(client(peer, request));
            request.setAttribute(ATTRIBUTE, source);
            return source;
        });
    }

    private InetAddress client(InetAddress peer, HttpRequest<?> request) {
        if (!isTrusted(peer)) {
            return peer;
        }
        List<String> chain = rfc7239 ? forwardedChain(request) : xForwardedForChain(request);
        InetAddress candidate = peer;
        for (int i = chain.size() - 1; i >= 0; i--) {
            InetAddress hop = parseAddress(chain.get(i));
            if (hop == null) {
                return candidate; // an unreadable hop: trust nothing left of it
            }
            candidate = hop;
            if (!isTrusted(hop)) {
                return hop;
            }
        }
        return candidate;
    }

    private boolean isTrusted(InetAddress address) {
        for (Cidr cidr : trusted) {
            if (cidr.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** The hops of RFC 7239 {@code Forwarded} ({@code for=}); an element without one is an unreadable hop. */
    private static List<String> forwardedChain(HttpRequest<?> request) {
        List<String> hops = new ArrayList<>();
        for (String header : request.getHeaders().getAll("Forwarded")) {
            hops.addAll(forwardedHops(header));
        }
        return hops;
    }

    /**
     * The {@code for=} value of each element of one {@code Forwarded} line ("" for an element without one, or one
     * whose quoted string never closes). Commas and semicolons inside a quoted string are text, not separators
     * (RFC 7239 §4): a proxy that quotes a client-chosen value, such as {@code host="a,for=9.9.9.9"}, must not
     * give the client a hop of its choosing (an audit: split on every comma, that read as an element of its own).
     */
    static List<String> forwardedHops(String header) {
        List<String> hops = new ArrayList<>();
        String hop = null;
        StringBuilder name = new StringBuilder();
        StringBuilder value = new StringBuilder();
        boolean inValue = false;
        boolean quoted = false;
        boolean broken = false;
        for (int i = 0; i <= header.length(); i++) {
            char c = i < header.length() ? header.charAt(i) : ',';
            if (quoted && i < header.length()) {
                if (c == '\\' && i + 1 < header.length()) {
                    value.append(header.charAt(++i));
                } else if (c == '"') {
                    quoted = false;
                } else {
                    value.append(c);
                }
                continue;
            }
            if (quoted) { // the line ended inside a quoted string: its element cannot be read
                broken = true;
                quoted = false;
            }
            if (c == ';' || c == ',') {
                if (inValue && name.toString().trim().equalsIgnoreCase("for")) {
                    hop = value.toString().trim();
                }
                name.setLength(0);
                value.setLength(0);
                inValue = false;
                if (c == ',') {
                    hops.add(broken || hop == null ? "" : hop);
                    hop = null;
                    broken = false;
                }
            } else if (!inValue && c == '=') {
                inValue = true;
            } else if (inValue) {
                if (c == '"' && value.toString().isBlank()) {
                    quoted = true;
                    value.setLength(0);
                } else {
                    value.append(c);
                }
            } else {
                name.append(c);
            }
        }
        return hops;
    }

    /** The hops of {@code X-Forwarded-For}, over all its header lines in order. */
    private static List<String> xForwardedForChain(HttpRequest<?> request) {
        List<String> hops = new ArrayList<>();
        for (String header : request.getHeaders().getAll("X-Forwarded-For")) {
            for (String hop : header.split(",")) {
                hops.add(hop.trim());
            }
        }
        return hops;
    }

    /** An IP literal from a forwarded hop (quotes, brackets and ports removed); null for anything else. */
    @Nullable
    static InetAddress parseAddress(String hop) {
        String value = hop.trim();
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            value = value.substring(1, value.length() - 1);
        }
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0) {
                return null;
            }
            value = value.substring(1, close);
        } else if (value.indexOf(':') >= 0 && value.indexOf(':') == value.lastIndexOf(':')) {
            value = value.substring(0, value.indexOf(':')); // IPv4 with a port
        }
        return literal(value);
    }

    @Nullable
    private static InetAddress literal(String value) {
        if (value.isEmpty() || value.length() > 45) {
            return null;
        }
        boolean ipv4 = value.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean ipv6 = value.indexOf(':') >= 0 && value.matches("[0-9A-Fa-f:.]+");
        if (!ipv4 && !ipv6) {
            return null; // "unknown", obfuscated identifiers, host names: never resolved
        }
        if (ipv4) {
            for (String part : value.split("\\.")) {
                if (Integer.parseInt(part) > 255) {
                    return null;
                }
            }
        }
        try {
            return InetAddress.getByName(value); // a literal: no lookup
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private String bucketName(InetAddress address) {
        if (address instanceof Inet6Address v6) {
            byte[] bytes = v6.getAddress();
            if (isIpv4Mapped(bytes)) {
                return (bytes[12] & 0xff) + "." + (bytes[13] & 0xff) + "." + (bytes[14] & 0xff) + "."
                        + (bytes[15] & 0xff);
            }
            Cidr.mask(bytes, ipv6Prefix);
            try {
                return InetAddress.getByAddress(bytes).getHostAddress().toLowerCase(Locale.ROOT) + "/" + ipv6Prefix;
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }
        return address.getHostAddress();
    }

    private static boolean isIpv4Mapped(byte[] bytes) {
        for (int i = 0; i < 10; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff;
    }

    /** A trusted network: an address and a prefix length. */
    record Cidr(byte[] network, int prefix) {

        static Cidr parse(String text) {
            int slash = text.indexOf('/');
            String address = slash < 0 ? text : text.substring(0, slash);
            InetAddress parsed = literal(address);
            if (parsed == null) {
                throw new IllegalArgumentException(TRUSTED_PROXIES + ": \'" + text
                        + "\' is not an IP address or CIDR block (e.g. 10.0.0.0/8 or 127.0.0.1)");
            }
            byte[] bytes = parsed.getAddress();
            int bits = bytes.length * 8;
            int prefix;
            try {
                prefix = slash < 0 ? bits : Integer.parseInt(text.substring(slash + 1));
            } catch (NumberFormatException e) {
                prefix = -1;
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException(TRUSTED_PROXIES + ": \'" + text
                        + "\' has an invalid prefix length");
            }
            mask(bytes, prefix);
            return new Cidr(bytes, prefix);
        }

        boolean contains(InetAddress address) {
            byte[] bytes = address.getAddress();
            if (address instanceof Inet6Address && network.length == 4 && isIpv4Mapped(bytes)) {
                bytes = new byte[] {bytes[12], bytes[13], bytes[14], bytes[15]};
            }
            if (address instanceof Inet4Address && network.length == 16) {
                return false;
            }
            if (bytes.length != network.length) {
                return false;
            }
            mask(bytes, prefix);
            return java.util.Arrays.equals(bytes, network);
        }

        static void mask(byte[] bytes, int prefix) {
            for (int i = 0; i < bytes.length; i++) {
                int keep = Math.max(0, Math.min(8, prefix - i * 8));
                bytes[i] &= (byte) (0xff << (8 - keep));
            }
        }
    }
}
