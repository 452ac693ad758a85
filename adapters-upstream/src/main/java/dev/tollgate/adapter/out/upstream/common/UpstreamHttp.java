package dev.tollgate.adapter.out.upstream.common;

import dev.tollgate.application.port.out.ModelProvider;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.ChannelPool;
import io.netty.channel.pool.SimpleChannelPool;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.InetNameResolver;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream adapter support: the HTTP/1.1 client every HTTP provider streams through, on Netty's event loops (the
 * gateway's own, so an upstream answer is read and passed on without a thread hand-off). Keep-alive connections are
 * pooled per origin; a 200 is read line by line as bytes arrive and handed to a {@link StreamingExchange.Decoder};
 * any other status is read (up to 64 KiB) and reported as a rejection; transport errors are reported once.
 * Cancelling closes the upstream connection at once (docs/decisions.md, "Upstream HTTP client").
 *
 * <p>A pooled connection the server closed while it was idle fails the next request before any answer; such a
 * request is sent again on another connection (nothing reached the provider's model).
 */
public final class UpstreamHttp implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(UpstreamHttp.class);
    private static final int MAX_ERROR_BODY = 64 * 1024;
    private static final AttributeKey<Integer> USES = AttributeKey.valueOf("tollgate.upstream.uses");
    private static final String EXCHANGE = "exchange";

    private record Origin(boolean tls, String host, int port, int connectTimeoutMillis) {
    }

    private final EventLoopGroup group;
    private final Class<? extends Channel> channelType;
    private final boolean ownsGroup;
    private final Duration idleTimeout;
    private final Clock clock;
    private final Map<Origin, ChannelPool> pools = new ConcurrentHashMap<>();
    private volatile SslContext ssl;

    /**
     * @param group       the event loops the connections live on
     * @param channelType the client socket channel type of that group's transport
     * @param idleTimeout how long an unused pooled connection stays open
     * @param clock       the time an answer's {@code Retry-After} date is read against
     */
    public UpstreamHttp(EventLoopGroup group, Class<? extends Channel> channelType, Duration idleTimeout,
            Clock clock) {
        this(group, channelType, idleTimeout, false, clock);
    }

    private UpstreamHttp(EventLoopGroup group, Class<? extends Channel> channelType, Duration idleTimeout,
            boolean ownsGroup, Clock clock) {
        this.group = group;
        this.channelType = channelType;
        this.idleTimeout = idleTimeout;
        this.ownsGroup = ownsGroup;
        this.clock = clock;
    }

    /** A client with an event loop of its own (tools and tests); {@link #close()} stops it. */
    public static UpstreamHttp standalone() {
        return new UpstreamHttp(new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()),
                NioSocketChannel.class, Duration.ofSeconds(30), true, Clock.systemUTC());
    }

    /** The clock of the gateway, for what an upstream's answer says about time. */
    public Clock clock() {
        return clock;
    }

    /**
     * POSTs {@code body} to {@code uri} and streams the answer into {@code decoder}; {@code listener} hears the
     * first byte of a 200. Returns the handle that cancels the call.
     */
    public ModelProvider.UpstreamCall post(URI uri, Map<String, String> headers, byte[] body,
            Duration connectTimeout, ModelProvider.UpstreamListener listener, StreamingExchange.Decoder decoder) {
        boolean tls = "https".equalsIgnoreCase(uri.getScheme());
        int port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
        Origin origin = new Origin(tls, uri.getHost(), port, (int) connectTimeout.toMillis());
        Exchange exchange = new Exchange(pools.computeIfAbsent(origin, this::pool), uri, headers, body, listener,
                decoder);
        exchange.start();
        return exchange;
    }

    private ChannelPool pool(Origin origin) {
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(channelType)
                .remoteAddress(InetSocketAddress.createUnresolved(origin.host(), origin.port()))
                .resolver(OffLoopResolver.GROUP)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, origin.connectTimeoutMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true);
        return new SimpleChannelPool(bootstrap, new AbstractChannelPoolHandler() {
            @Override
            public void channelCreated(Channel channel) throws SSLException {
                channel.attr(USES).set(0);
                if (origin.tls()) {
                    SslHandler handler = sslContext().newHandler(channel.alloc(), origin.host(), origin.port());
                    SSLParameters parameters = handler.engine().getSSLParameters();
                    parameters.setEndpointIdentificationAlgorithm("HTTPS");
                    handler.engine().setSSLParameters(parameters);
                    channel.pipeline().addLast("tls", handler);
                }
                channel.pipeline()
                        .addLast("http", new HttpClientCodec())
                        .addLast("idle", new IdleStateHandler(0, 0, idleTimeout.toMillis(), TimeUnit.MILLISECONDS))
                        .addLast("idle-close", new IdleClose());
            }
        }, ChannelHealthChecker.ACTIVE, true, true);
    }

    private SslContext sslContext() throws SSLException {
        SslContext context = ssl;
        if (context == null) {
            synchronized (this) {
                if (ssl == null) {
                    ssl = SslContextBuilder.forClient().build();
                }
                context = ssl;
            }
        }
        return context;
    }

    @Override
    public void close() {
        pools.values().forEach(ChannelPool::close);
        pools.clear();
        if (ownsGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * Looks host names up off the event loops: the JDK's lookup blocks, and these event loops also serve the
     * gateway's clients. Addresses written as IP literals need no lookup.
     */
    private static final class OffLoopResolver extends InetNameResolver {
        static final AddressResolverGroup<InetSocketAddress> GROUP = new AddressResolverGroup<>() {
            @Override
            protected AddressResolver<InetSocketAddress> newResolver(EventExecutor executor) {
                return new OffLoopResolver(executor).asAddressResolver();
            }
        };
        private static final Executor LOOKUPS = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "upstream-dns");
            thread.setDaemon(true);
            return thread;
        });

        OffLoopResolver(EventExecutor executor) {
            super(executor);
        }

        @Override
        protected void doResolve(String host, Promise<InetAddress> promise) {
            lookUp(host, promise, () -> InetAddress.getByName(host));
        }

        @Override
        protected void doResolveAll(String host, Promise<List<InetAddress>> promise) {
            lookUp(host, promise, () -> Arrays.asList(InetAddress.getAllByName(host)));
        }

        private interface Lookup<T> {
            T run() throws UnknownHostException;
        }

        private static <T> void lookUp(String host, Promise<T> promise, Lookup<T> lookup) {
            Runnable task = () -> {
                try {
                    promise.trySuccess(lookup.run());
                } catch (UnknownHostException | RuntimeException e) {
                    promise.tryFailure(e);
                }
            };
            if (NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)) {
                task.run();
            } else {
                LOOKUPS.execute(task);
            }
        }
    }

    /** Closes a pooled connection nobody used for the idle timeout; a connection in use is left alone. */
    private static final class IdleClose extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event instanceof IdleStateEvent && ctx.pipeline().get(EXCHANGE) == null) {
                ctx.close();
                return;
            }
            super.userEventTriggered(ctx, event);
        }

        /**
         * A pooled connection between calls that fails (the provider reset it): closed, so the pool does not hand
         * it out; a call's failure goes on to the call. Without this, Netty logged each reset with a stack trace.
         */
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (ctx.pipeline().get(EXCHANGE) != null) {
                ctx.fireExceptionCaught(cause);
                return;
            }
            LOG.debug("An idle upstream connection failed and is closed: {}", cause.toString());
            ctx.close();
        }
    }

    /**
     * Longest a cancelled call waits, its request side shut, for the provider to close its side before the
     * connection is closed from here: HTTP servers (Node, Go, uvicorn, nginx) close at once when the client's side
     * ends, so this bounds only one that ignores it.
     */
    static final long CLOSE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /**
     * One request and its answer; the handler sits in the connection's pipeline while the exchange runs. Sharable
     * only in Netty's sense: a request sent again after a dropped connection moves it to the new connection's
     * pipeline; it is never in two at once.
     */
    @ChannelHandler.Sharable
    private static final class Exchange extends ChannelInboundHandlerAdapter implements ModelProvider.UpstreamCall {
        /** How long a body may stay open once its decoder has the whole answer. */
        static final long LEFT_OPEN_NANOS = TimeUnit.SECONDS.toNanos(1);
        private final ChannelPool pool;
        private final URI uri;
        private final Map<String, String> headers;
        private final byte[] body;
        private final ModelProvider.UpstreamListener listener;
        private final StreamingExchange.Decoder decoder;
        private final SseLineSplitter lines;
        private volatile boolean cancelled;
        private volatile Channel channel;
        // the fields below are used on the connection's event loop only
        private int staleRetries;
        private boolean reused;
        /** The request could not be written: it never reached the provider. */
        private boolean unsent;
        private boolean answered;
        /** A byte of a 200's body arrived (told to the decoder once). */
        private boolean bodyBegan;
        /** Closes a body the provider holds open after the decoder has its whole answer ({@link #LEFT_OPEN_NANOS}). */
        private ScheduledFuture<?> leftOpen;
        private boolean finished;
        private int status;
        private String retryAfter;
        private boolean keepAlive;
        private ByteArrayOutputStream errorBody;
        private Throwable failure;
        /** Cancelled: the request side is shut, and what the provider sends until its side closes is still read. */
        private boolean closing;

        Exchange(ChannelPool pool, URI uri, Map<String, String> headers, byte[] body,
                ModelProvider.UpstreamListener listener, StreamingExchange.Decoder decoder) {
            this.pool = pool;
            this.uri = uri;
            this.headers = headers;
            this.body = body;
            this.listener = listener;
            this.decoder = decoder;
            this.lines = new SseLineSplitter(decoder::line);
        }

        void start() {
            // The promise completes on the connection's own event loop (after the pool's health check there), so
            // the request is written without another hand-off: the pool's default promise belongs to the next
            // loop of the group, whose listener would run there and hand the send back to the connection's loop.
            Promise<Channel> promise = ImmediateEventExecutor.INSTANCE.newPromise();
            pool.acquire(promise).addListener(acquired -> {
                if (!acquired.isSuccess()) {
                    decoder.transportFailed(acquired.cause());
                    return;
                }
                Channel ch = (Channel) acquired.getNow();
                if (ch.eventLoop().inEventLoop()) {
                    send(ch);
                } else {
                    ch.eventLoop().execute(() -> send(ch));
                }
            });
        }

        private void send(Channel ch) {
            int uses = ch.attr(USES).get() + 1;
            ch.attr(USES).set(uses);
            reused = uses > 1;
            answered = false;
            unsent = false;
            failure = null;
            channel = ch;
            if (cancelled) { // cancel() may have missed this channel
                ch.close();
                return;
            }
            try {
                ch.pipeline().addLast(EXCHANGE, this);
            } catch (RuntimeException e) { // never expected; the call must still end
                ch.close();
                finished = true;
                decoder.transportFailed(e);
                return;
            }
            ch.writeAndFlush(request()).addListener(written -> {
                if (!written.isSuccess()) {
                    unsent = true;
                    failure = written.cause();
                    ch.close();
                }
            });
        }

        private FullHttpRequest request() {
            String target = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            if (uri.getRawQuery() != null) {
                target += "?" + uri.getRawQuery();
            }
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, target,
                    Unpooled.wrappedBuffer(body));
            int defaultPort = "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
            request.headers().set(HttpHeaderNames.HOST, uri.getPort() > 0 && uri.getPort() != defaultPort
                    ? uri.getHost() + ":" + uri.getPort() : uri.getHost());
            headers.forEach((name, value) -> request.headers().set(name, value));
            request.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            return request;
        }

        /**
         * Azure OpenAI's wait in milliseconds ({@code retry-after-ms}, {@code x-ms-retry-after-ms}), as seconds
         * {@link StreamingExchange#retryAfter} reads, when a provider sends no {@code Retry-After}.
         */
        private static String retryAfterMillis(io.netty.handler.codec.http.HttpHeaders headers) {
            for (String name : new String[] {"retry-after-ms", "x-ms-retry-after-ms"}) {
                String millis = headers.get(name);
                if (millis != null) {
                    try {
                        return StreamingExchange.decimal(millis.strip()).movePointLeft(3).toPlainString();
                    } catch (NumberFormatException ignored) {
                        // not a number: as if absent
                    }
                }
            }
            return null;
        }

        /**
         * On the event loop: shuts the request side of the connection, so the provider hears at once that the client
         * left (a TCP FIN), and goes on reading what it sends until it closes its side — at most
         * {@link #CLOSE_WAIT_NANOS}, then the connection is closed from here. Everything the provider wrote before it
         * saw the end is read and reaches the listener, so it is billed (G13): a close with the answer still unread
         * in the socket's buffer discarded it (a reset), and on a loaded machine an aborted stream was billed up to
         * 46 tokens under what the provider had sent before it saw the close (an audit).
         */
        private void closeAfterProvider(Channel ch, Runnable closed) {
            closing = true;
            ScheduledFuture<?> limit = ch.eventLoop().schedule(() -> ch.close(), CLOSE_WAIT_NANOS,
                    TimeUnit.NANOSECONDS);
            ch.closeFuture().addListener(done -> {
                limit.cancel(false);
                if (!cancelled) {
                    cancelled = true;
                    decoder.cancelled();
                }
                closed.run();
            });
            ch.config().setAutoRead(true);
            if (ch instanceof DuplexChannel duplex) {
                duplex.shutdownOutput().addListener(shut -> {
                    if (!shut.isSuccess()) {
                        ch.close();
                    }
                });
            } else {
                ch.close();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (finished || cancelled) {
                    return;
                }
                if (msg instanceof io.netty.handler.codec.http.HttpObject object && object.decoderResult().isFailure()) {
                    if (object.decoderResult().cause() instanceof PrematureChannelClosureException) {
                        // Not an unreadable answer: the connection closed before the head was complete. The close
                        // that follows reports it as a transport failure, which the retry policy counts.
                        failure = object.decoderResult().cause();
                        ctx.close();
                        return;
                    }
                    // Netty's codec could not read it (no status line, a bad header or chunk size): it made up a
                    // status 999 for it, which must not pass for the provider's own answer.
                    finished = true;
                    ctx.close();
                    LOG.warn("The answer from {} is not valid HTTP: {}", uri.getHost(),
                            UpstreamErrors.mask(String.valueOf(object.decoderResult().cause())));
                    decoder.malformed("a response that is not valid HTTP");
                    return;
                }
                if (msg instanceof HttpResponse response) {
                    if (response.status().code() < 200) {
                        return; // an interim answer (100 Continue): the real one follows
                    }
                    answered = true;
                    status = response.status().code();
                    retryAfter = response.headers().get(HttpHeaderNames.RETRY_AFTER);
                    if (retryAfter == null) {
                        retryAfter = retryAfterMillis(response.headers());
                    }
                    keepAlive = HttpUtil.isKeepAlive(response);
                    String type = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
                    if (status == 200 && type != null && (type.toLowerCase(Locale.ROOT).startsWith("application/json")
                            || type.toLowerCase(Locale.ROOT).startsWith("text/html"))) {
                        // A whole answer where a stream was asked for: not read as one, and not asked again (it
                        // would answer the same, at the provider's cost each time).
                        finished = true;
                        ctx.close();
                        decoder.malformed("a whole answer (" + type + ") where an event stream was asked for");
                        return;
                    }
                    if (status != 200) { // a 200's status line is no byte of the answer yet: its body's first is
                        errorBody = new ByteArrayOutputStream();
                    }
                }
                if (msg instanceof HttpContent content && answered) {
                    ByteBuf bytes = content.content();
                    if (status == 200) {
                        if (!bodyBegan && bytes.isReadable()) {
                            bodyBegan = true;
                            decoder.bodyBegan();
                        }
                        if (!lines.feed(bytes)) {
                            failure = new IOException("a line of the stream is longer than "
                                    + SseLineSplitter.MAX_LINE + " bytes");
                            finished = true;
                            ctx.close();
                            decoder.malformed("an event line longer than " + SseLineSplitter.MAX_LINE
                                    + " bytes (the gateway's limit)");
                            return;
                        }
                    } else {
                        int room = MAX_ERROR_BODY - errorBody.size();
                        int take = Math.min(room, bytes.readableBytes());
                        if (take > 0) {
                            byte[] chunk = new byte[take];
                            bytes.readBytes(chunk);
                            errorBody.write(chunk, 0, take);
                        }
                    }
                    if (msg instanceof LastHttpContent) {
                        complete(ctx);
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        /**
         * After a read: a decoder that has its whole answer while the body is still open gets the body's end within
         * {@link #LEFT_OPEN_NANOS}, or the connection is closed (it cannot go back to the pool with a body unread).
         * The end usually comes in the same read as the last event, so no timer is set for most answers.
         */
        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (!finished && !cancelled && answered && status == 200 && leftOpen == null
                    && decoder.answerComplete()) {
                Channel ch = ctx.channel();
                leftOpen = ch.eventLoop().schedule(() -> {
                    if (!finished && !cancelled && channel == ch) {
                        finished = true; // the decoder has its answer: nothing more to report
                        ch.close();
                    }
                }, LEFT_OPEN_NANOS, TimeUnit.NANOSECONDS);
            }
            ctx.fireChannelReadComplete();
        }

        /** The whole answer arrived: the connection goes back to the pool (or is closed), then the decoder hears. */
        private void complete(ChannelHandlerContext ctx) {
            finished = true;
            if (leftOpen != null) {
                leftOpen.cancel(false);
            }
            Channel ch = ctx.channel();
            ctx.pipeline().remove(this);
            ch.config().setAutoRead(true); // a pooled connection is handed out reading, whatever this call did
            if (keepAlive && !cancelled && !closing) {
                pool.release(ch);
            } else {
                ch.close();
            }
            if (status == 200) {
                try {
                    lines.finish();
                    decoder.ended();
                } catch (RuntimeException unreadable) {
                    // The last line, or the decoder's end of the answer, failed: as on any other line (see
                    // exceptionCaught), an unreadable answer — with the handler removed, Netty would only log it.
                    LOG.warn("Reading an answer from {} failed", uri.getHost(), unreadable);
                    decoder.malformed("an answer the gateway could not read (its log says where)");
                }
            } else {
                decoder.rejected(status, retryAfter, errorBody.toString(StandardCharsets.UTF_8));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // Netty's decoders wrap what they caught: a TLS failure is the connection's, like an I/O one.
            Throwable root = cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() != null
                    ? cause.getCause() : cause;
            // A TLS handler that meets plain HTTP (an https:// base-url of a server speaking http) fails the same way.
            boolean connection = root instanceof IOException || root instanceof NotSslRecordException;
            if (!connection && !finished && !cancelled) {
                // Not the connection: the answer could not be decoded (Netty's HTTP codec refused it, or a decoder
                // failed on it). Reported as such, once, and logged with where it happened: were it only
                // recorded, the close that follows would report "closed before complete", a retryable failure.
                finished = true;
                ctx.close();
                LOG.warn("Reading an answer from {} failed", uri.getHost(), cause);
                decoder.malformed("an answer the gateway could not read (its log says where)");
                return;
            }
            if (failure == null) {
                failure = cause;
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (finished || cancelled || closing) {
                return; // a cancelled call's close is reported by closeAfterProvider
            }
            if (!answered && reused && unsent && staleRetries == 0) {
                // A kept-alive connection the server had closed while it lay idle, found out by writing to it: the
                // request never left, so it goes once more on another connection. A connection that closes after
                // taking the request is a provider that got it and failed: that goes to the retry policy, which
                // counts it (§7.2), rather than being sent again behind its back.
                staleRetries++;
                ctx.pipeline().remove(this);
                start();
                return;
            }
            finished = true;
            if (answered && status == 200) {
                decoder.ended(); // cut off: the decoder decides whether the answer was complete
                return;
            }
            Throwable cause = failure != null ? failure
                    : new ClosedChannelException();
            decoder.transportFailed(answered ? new IOException("the connection closed in the middle of an answer",
                    cause) : new IOException("the connection closed before an answer", cause));
        }

        @Override
        public void cancel() {
            cancel(() -> { });
        }

        /**
         * The client reads slowly: the connection stops reading (TCP holds the provider back) until {@link #resume};
         * queued on the connection's event loop, in order, and only while this call still owns the connection.
         */
        @Override
        public void pause() {
            reading(false);
        }

        @Override
        public void resume() {
            reading(true);
        }

        private void reading(boolean read) {
            Channel ch = channel;
            if (ch == null) {
                return;
            }
            try {
                ch.eventLoop().execute(() -> {
                    if (!finished && !cancelled && !closing && channel == ch) {
                        ch.config().setAutoRead(read); // true also asks for the next read
                    }
                });
            } catch (RejectedExecutionException stopping) {
                // the event loop is shutting down: the call ends with it
            }
        }

        /**
         * Ends the call on its connection's event loop: the request side is shut at once and the connection closes
         * when the provider closes its side, or after {@link #CLOSE_WAIT_NANOS} ({@link #closeAfterProvider}), so
         * that what the upstream sent before it saw the end — read already, or still in the socket's buffer —
         * reaches the listener and is billed (G13); {@code closed} runs once the connection is closed. A connection
         * whose answer was complete went back to the pool and is left alone.
         */
        @Override
        public void cancel(Runnable closed) {
            Channel ch = channel;
            if (ch == null) { // not connected yet: send() sees the flag and closes the connection it gets
                cancelled = true;
                decoder.cancelled();
                closed.run();
                return;
            }
            try {
                ch.eventLoop().execute(() -> {
                    if (finished) {
                        cancelled = true;
                        decoder.cancelled();
                        closed.run();
                        return;
                    }
                    if (closing) { // cancelled before: its close is on its way
                        ch.closeFuture().addListener(done -> closed.run());
                        return;
                    }
                    // A call held back for a slow client has the provider's output waiting in the socket: it is all
                    // read before the close, so that it is billed (G13).
                    closeAfterProvider(ch, closed);
                });
            } catch (RejectedExecutionException e) { // the event loop is shutting down
                cancelled = true;
                decoder.cancelled();
                ch.close();
                closed.run();
            }
        }
    }
}
