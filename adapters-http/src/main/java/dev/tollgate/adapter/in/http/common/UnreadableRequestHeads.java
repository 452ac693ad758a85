package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.convert.format.ReadableBytes;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.netty.channel.ChannelPipelineCustomizer;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.micronaut.json.JsonMapper;
import io.micronaut.web.router.uri.UriUtil;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * HTTP adapter: request heads the framework cannot turn into a request still get the right status in the envelope
 * of the surface they were sent to (§7.1 for {@code /api/…}, §7.2 elsewhere), with an {@code x-request-id}.
 * <ul>
 * <li>A request line over the codec's limit: {@code 414 URI Too Long}; headers over theirs:
 * {@code 431 Request Header Fields Too Large} (Micronaut would answer both as a 413 about the body).</li>
 * <li>A request line of an HTTP version other than 1.0 and 1.1 ({@code HTTP/1.2}, {@code HTTP/2.0}, HTTP/2's
 * prior-knowledge preface {@code PRI * HTTP/2.0}): {@code 505 HTTP Version Not Supported}, answered in HTTP/1.1
 * (Netty would echo the version it was sent in the status line of an HTTP/1.1 answer).</li>
 * <li>A method HTTP does not define, or a defined one spelt in another letter case ({@code get}: methods are
 * case-sensitive, RFC 9110 §9.1): {@code 501 Not Implemented}. Micronaut would serve {@code get} as {@code GET}
 * and answer an unknown method with a 405 that lists the route's methods as if the method were merely not allowed
 * there.</li>
 * <li>An HTTP/1.1 request without a {@code Host} header, or any with more than one: 400 (RFC 9112 §3.2), as
 * Micronaut would serve it.</li>
 * <li>A request that asks to be told to go on ({@code Expect: 100-continue}) with a {@code Content-Length} over the
 * body limit: {@code 413} at once, rather than a {@code 100 Continue} that invites a body only to refuse it (RFC 9110
 * §10.1.1).</li>
 * <li>A chunked body whose chunks cannot be read (a size that is no hexadecimal number): 400 saying so — Micronaut
 * would read the chunks before it as the whole body and answer, for instance, that the body is empty.</li>
 * <li>A control-plane request target that is no URI (a broken percent-escape such as {@code %ZZ}): 400. Micronaut
 * answers it too, but for a stand-in request of path {@code /}, so in the model surface's envelope; on the model
 * surface that answer is already right and is left to it.</li>
 * </ul>
 * Which surface a head whose request line could not be decoded was meant for is read from its first bytes. The
 * connection is closed after such an answer: the rest of the request cannot be told apart from the next one.
 */
@Singleton
public final class UnreadableRequestHeads implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

    /**
     * RFC 9110's {@code uri-host [ ":" port ]}: an IP literal in brackets, or a reg-name (IPv4 included) of
     * unreserved, sub-delim and percent-encoded characters; empty is allowed (a target without an authority).
     */
    private static final Pattern HOST = Pattern.compile(
            "(\\[[0-9A-Za-z:.%_~-]+]|(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*)(:[0-9]*)?");
    private static final String RAW = "tollgate-unreadable-heads-raw";
    private static final String DECODED = "tollgate-unreadable-heads-decoded";
    private static final byte[] CONTROL_PLANE = "/api/".getBytes(StandardCharsets.US_ASCII);
    /** The methods RFC 9110 defines, and PATCH (RFC 5789): any other is not implemented here. */
    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS",
            "TRACE", "PATCH");

    private final JsonMapper json;
    private final Clock clock;
    private final String lineLimit;
    private final String headerLimit;
    private final long maxRequestSize;

    UnreadableRequestHeads(JsonMapper json, Clock clock,
            @Value("${micronaut.server.netty.max-initial-line-length:4096}") int maxLine,
            @Value("${micronaut.server.netty.max-header-size:8192}") int maxHeaders,
            @Value("${micronaut.server.max-request-size:10485760}") @ReadableBytes long maxRequestSize) {
        this.json = json;
        this.clock = clock;
        this.maxRequestSize = maxRequestSize;
        this.lineLimit = String.format(Locale.ROOT, "%,d", maxLine);
        this.headerLimit = String.format(Locale.ROOT, "%,d", maxHeaders);
    }

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        Http1Connections.register(event.getBean(), RAW, pipeline -> {
            Heads heads = new Heads();
            pipeline.addBefore(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC, RAW, heads.raw);
            pipeline.addAfter(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC, DECODED, heads.decoded);
        });
        return event.getBean();
    }

    /** One connection: the first bytes of each request before the codec, the decoded heads after it. */
    private final class Heads {
        private boolean atRequestStart = true;
        private boolean controlPlane;
        private boolean answered;

        final ChannelInboundHandlerAdapter raw = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (atRequestStart && msg instanceof ByteBuf buf && buf.isReadable()) {
                    atRequestStart = false;
                    controlPlane = targetIsControlPlane(buf);
                }
                ctx.fireChannelRead(msg);
            }
        };

        final ChannelInboundHandlerAdapter decoded = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (answered) {
                    ReferenceCountUtil.release(msg); // the rest of a request already answered
                    return;
                }
                if (msg instanceof HttpRequest request && refuse(ctx, request)) {
                    answered = true;
                    ReferenceCountUtil.release(msg);
                    return;
                }
                if (msg instanceof HttpContent content && !(msg instanceof HttpRequest)
                        && content.decoderResult().isFailure()) {
                    // A chunk the codec could not read (its size no hexadecimal number, a chunk longer than its
                    // size said): the body is cut where it failed, and Micronaut would read what came before as
                    // the whole body ("Request body is empty"). Its request is answered here; Micronaut's, still
                    // waiting for the body's end, goes nowhere once the connection is closed.
                    answered = true;
                    ReferenceCountUtil.release(msg);
                    answer(ctx, controlPlane, HttpStatus.BAD_REQUEST, "The request body's chunked encoding cannot be "
                            + "read: each chunk is its size in hexadecimal, CRLF, that many bytes and CRLF, and a chunk "
                            + "of size 0 ends the body (or send the body with a Content-Length instead)");
                    return;
                }
                if (msg instanceof LastHttpContent) {
                    atRequestStart = true;
                }
                ctx.fireChannelRead(msg);
            }
        };

        private boolean refuse(ChannelHandlerContext ctx, HttpRequest request) {
            if (request.decoderResult().isFailure()) {
                Throwable cause = request.decoderResult().cause();
                if (cause instanceof TooLongHttpLineException) {
                    answer(ctx, controlPlane, HttpStatus.REQUEST_URI_TOO_LONG, "The request line is too long: "
                            + "keep the method, URL (path and query) and version under " + lineLimit + " bytes");
                    return true;
                }
                if (cause instanceof TooLongHttpHeaderException) {
                    answer(ctx, controlPlane, HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "The request headers are "
                            + "too large: keep them under " + headerLimit + " bytes in all");
                    return true;
                }
                // Any other head the decoder refused (two Content-Lengths, one that is no number, a broken
                // header line): say what it found, rather than the framework's bare "Bad Request".
                String found = cause == null || cause.getMessage() == null ? "unreadable"
                        : ApiErrors.shown(cause.getMessage(), 160);
                answer(ctx, controlPlane, HttpStatus.BAD_REQUEST, "The request head cannot be read (" + found
                        + "): send an HTTP/1.1 request with well-formed headers and at most one Content-Length");
                return true;
            }
            String target = request.uri();
            HttpVersion version = request.protocolVersion();
            if (!HttpVersion.HTTP_1_1.equals(version) && !HttpVersion.HTTP_1_0.equals(version)) {
                answer(ctx, controlPlane, HttpStatus.HTTP_VERSION_NOT_SUPPORTED, "HTTP version "
                        + ApiErrors.shown(version.text(), 16) + " is not supported: send HTTP/1.1");
                return true;
            }
            String method = request.method().name();
            if (!METHODS.contains(method)) {
                answer(ctx, controlPlane, HttpStatus.NOT_IMPLEMENTED, "Method " + ApiErrors.shown(method, 24)
                        + " is not implemented" + (METHODS.contains(method.toUpperCase(Locale.ROOT))
                        ? " (methods are case-sensitive): send " + method.toUpperCase(Locale.ROOT)
                        : ": send GET, POST, PATCH or DELETE, as the route takes"));
                return true;
            }
            // RFC 9112 §3.2: an HTTP/1.1 request without a Host header, or with more than one, is a 400.
            int hosts = request.headers().getAll(HttpHeaderNames.HOST).size();
            if (hosts > 1 || hosts == 0 && HttpVersion.HTTP_1_1.equals(request.protocolVersion())) {
                answer(ctx, controlPlane, HttpStatus.BAD_REQUEST, hosts == 0 ? "The request has no Host header, "
                        + "which HTTP/1.1 requires: send Host with the server's name (and port)" : "The request has "
                        + hosts + " Host headers: send exactly one");
                return true;
            }
            String host = hosts == 1 ? request.headers().get(HttpHeaderNames.HOST) : null;
            if (host != null && !HOST.matcher(host).matches()) {
                // RFC 9112 §3.2: a Host field with an invalid value is a 400 too (an audit: localhost:1@evil.example
                // passed, and a check that reads the name before the first ':' took it for the loopback).
                answer(ctx, controlPlane, HttpStatus.BAD_REQUEST, "The Host header '" + ApiErrors.shown(host, 64)
                        + "' is not a host name or address with an optional port: send the server's name (and port)");
                return true;
            }
            if (refusedFraming(ctx, controlPlane, request)) {
                return true;
            }
            if (HttpUtil.is100ContinueExpected(request) && HttpUtil.getContentLength(request, -1L) > maxRequestSize) {
                answer(ctx, controlPlane, HttpStatus.REQUEST_ENTITY_TOO_LARGE,
                        EnvelopeErrorResponseProcessor.tooLarge(maxRequestSize));
                return true;
            }
            if (ApiErrors.isControlPlane(target) && !isUri(target)) {
                answer(ctx, true, HttpStatus.BAD_REQUEST, "The request target is not a valid URI (a '%' must start "
                        + "an escape of two hexadecimal digits, e.g. %25 for '%' itself)");
                return true;
            }
            return false;
        }
    }

    /**
     * RFC 9112 §6.1 and §6.3: a request with a {@code Transfer-Encoding} whose last coding is not {@code chunked}
     * (or that names it twice) has a body of unknown length — a 400, and the connection closed, since the next
     * request could not be told from this one's body (an audit, 2026-11-29: {@code xchunked} or {@code identity}
     * with a {@code Content-Length} was read by the length and the bytes after it served as a second request);
     * codings before {@code chunked} that the server does not decode ({@code gzip, chunked}): 501; any in an HTTP/1.0
     * request: framing HTTP/1.0 does not have, a 400.
     */
    private boolean refusedFraming(ChannelHandlerContext ctx, boolean controlPlane, HttpRequest request) {
        java.util.List<String> codings = new java.util.ArrayList<>();
        for (String value : request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING)) {
            for (String coding : value.split(",")) {
                int parameters = coding.indexOf(';');
                String name = (parameters < 0 ? coding : coding.substring(0, parameters)).strip()
                        .toLowerCase(Locale.ROOT);
                if (!name.isEmpty()) {
                    codings.add(name);
                }
            }
        }
        if (codings.isEmpty() && !request.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            return false;
        }
        String declared = ApiErrors.shown(String.join(", ", request.headers().getAll(
                HttpHeaderNames.TRANSFER_ENCODING)), 64);
        if (HttpVersion.HTTP_1_0.equals(request.protocolVersion())) {
            answer(ctx, controlPlane, HttpStatus.BAD_REQUEST, "An HTTP/1.0 request cannot carry Transfer-Encoding ('"
                    + declared + "'): send the body with a Content-Length, or send HTTP/1.1");
            return true;
        }
        if (codings.isEmpty() || !"chunked".equals(codings.get(codings.size() - 1))
                || codings.indexOf("chunked") != codings.size() - 1) {
            answer(ctx, controlPlane, HttpStatus.BAD_REQUEST, "The request's Transfer-Encoding '" + declared
                    + "' does not end with chunked (once), so its body's length cannot be known (RFC 9112 §6.3): "
                    + "send the body with a Content-Length, or with 'Transfer-Encoding: chunked' alone");
            return true;
        }
        if (codings.size() > 1) {
            answer(ctx, controlPlane, HttpStatus.NOT_IMPLEMENTED, "Transfer coding '"
                    + ApiErrors.shown(codings.get(0), 32) + "' is not supported here: send the body with "
                    + "'Transfer-Encoding: chunked' alone (compress it with 'Content-Encoding: gzip' instead)");
            return true;
        }
        return false;
    }

    /**
     * Whether the request line in {@code buf} (its start, as far as it goes) names a target under {@code /api/}:
     * empty lines before it skipped, an absolute form's scheme and authority ({@code http://host/api/…}) too. Also
     * what tells {@link RequestDeadlines} the surface of a head that never ended.
     */
    static boolean targetIsControlPlane(ByteBuf buf) {
        int start = buf.readerIndex();
        int end = buf.writerIndex();
        while (start < end && (buf.getByte(start) == '\r' || buf.getByte(start) == '\n')) {
            start++;
        }
        int space = buf.indexOf(start, Math.min(end, start + 16), (byte) ' ');
        if (space < 0) {
            return false;
        }
        int target = space + 1;
        if (target < end && buf.getByte(target) != '/') { // absolute form: scheme://authority/path
            int colon = buf.indexOf(target, Math.min(end, target + 16), (byte) ':');
            if (colon < 0 || colon + 2 >= end || buf.getByte(colon + 1) != '/' || buf.getByte(colon + 2) != '/') {
                return false;
            }
            target = colon + 3;
            while (target < end && buf.getByte(target) != '/' && buf.getByte(target) > ' ') {
                target++;
            }
        }
        while (target + 1 < end && buf.getByte(target) == '/' && buf.getByte(target + 1) == '/') {
            target++; // //api/… is the control plane's too (ApiErrors.isControlPlane)
        }
        if (end - target < CONTROL_PLANE.length) {
            return false;
        }
        for (int i = 0; i < CONTROL_PLANE.length; i++) {
            if (buf.getByte(target + i) != CONTROL_PLANE[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether Micronaut can read the target: make a URI of it when it builds the request (characters a URI may not
     * hold are escaped first; a target it still cannot parse becomes a stand-in for "/"), then decode its path and
     * query (a broken percent-escape such as {@code %ZZ} fails there).
     */
    static boolean isUri(String target) {
        try {
            URI.create(!UriUtil.isValidPath(target) && UriUtil.isRelative(target) ? UriUtil.toValidPath(target)
                    : target);
            QueryStringDecoder decoded = new QueryStringDecoder(target);
            decoded.path();
            decoded.parameters();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private void answer(ChannelHandlerContext ctx, boolean controlPlane, HttpStatus status, String message) {
        String requestId = RequestIds.newId();
        byte[] body;
        try {
            body = json.writeValueAsBytes(ApiErrors.body(controlPlane, status, message,
                    ApiErrors.genericModelError(status, null), requestId, clock));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(status.getCode()), Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(RequestIds.HEADER, requestId)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
