package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.netty.channel.ChannelPipelineCustomizer;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.micronaut.json.JsonMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * HTTP adapter: slow clients cannot hold connections (reliability goal G15, slowloris). A request's head must
 * arrive within {@code tollgate.http.request-head-timeout} (10 s) of its first byte and its body within
 * {@code tollgate.http.request-body-timeout} (30 s) of the head; otherwise the connection gets a
 * {@code 408 Request Timeout} and is closed. The idle timeout alone cannot do this: it restarts with every byte, so
 * a client sending one byte a second would keep a connection (and its memory) forever. Idle keep-alive connections
 * between requests are left to the server's idle timeout.
 */
@Singleton
public final class RequestDeadlines implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

    private static final String TIMEOUT_MESSAGE = "The request was not received in time; send it faster";
    /** How long a connection answered before its body arrived goes on reading (and dropping) before it closes. */
    private static final long LINGER_MILLIS = 2_000;
    /** How much of a request's start is kept to find its target if its head never ends (enough for the surface). */
    private static final int REQUEST_START = 128;

    private final long headNanos;
    private final long bodyNanos;
    private final JsonMapper json;
    private final Clock clock;
    private final IdleConnections connections;

    RequestDeadlines(@Value("${tollgate.http.request-head-timeout:10s}") Duration head,
            @Value("${tollgate.http.request-body-timeout:30s}") Duration body, JsonMapper json, Clock clock,
            IdleConnections connections) {
        this.headNanos = head.toNanos();
        this.bodyNanos = body.toNanos();
        this.json = json;
        this.clock = clock;
        this.connections = connections;
    }

    /**
     * The 408, with a request id of its own like every other answer, in the envelope of the surface the request was
     * sent to (the model surface's when not even its target arrived).
     */
    private byte[] requestTimeout(boolean controlPlane) {
        return RawAnswers.error(json, clock, controlPlane, HttpStatus.REQUEST_TIMEOUT,
                TIMEOUT_MESSAGE, new ApiErrors.ModelError("invalid_request_error", "request_timeout", null), "");
    }

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        Http1Connections.register(event.getBean(), Watch.BYTES, pipeline -> {
            Watch watch = new Watch();
            pipeline.addBefore(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC, Watch.BYTES, watch.bytes);
            pipeline.addAfter(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC, Watch.MESSAGES, watch.messages);
        });
        return event.getBean();
    }

    /** The deadlines of one connection: bytes seen before the codec, requests decoded after it. */
    private final class Watch {
        static final String BYTES = "tollgate-request-deadline-bytes";
        static final String MESSAGES = "tollgate-request-deadline-messages";

        private boolean receiving; // between the first byte of a request and its end
        private boolean headDone;
        private boolean controlPlane; // the request being received is the control plane's, once its head is decoded
        private final byte[] start = new byte[REQUEST_START]; // the first bytes of the request being received
        private int startLength;
        private boolean answeredEarly; // answered before its body was all received: closed after the answer
        private long requests; // heads decoded on this connection
        private long answers; // final answers begun on it (a pipelining client's next request may be arriving)
        private boolean withBody; // the request being received has a body (a length over 0, or chunks)
        private ScheduledFuture<?> deadline;
        private ChannelHandlerContext raw;

        final ChannelDuplexHandler bytes = new ChannelDuplexHandler() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                raw = ctx;
                connections.idle(ctx.channel());
                ctx.channel().closeFuture().addListener(closed -> connections.closed(ctx.channel()));
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof ByteBuf buf && buf.isReadable()) {
                    if (!receiving) {
                        receiving = true;
                        headDone = false;
                        startLength = 0;
                        connections.receivingHead(ctx.channel());
                        arm(headNanos);
                    }
                    if (!headDone && startLength < start.length) {
                        int length = Math.min(buf.readableBytes(), start.length - startLength);
                        buf.getBytes(buf.readerIndex(), start, startLength, length);
                        startLength += length;
                    }
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                disarm();
                ctx.fireChannelInactive();
            }
        };

        final ChannelDuplexHandler messages = new ChannelDuplexHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpRequest request && !headDone) {
                    headDone = true;
                    connections.busy(ctx.channel());
                    requests++;
                    controlPlane = ApiErrors.isControlPlane(request.uri());
                    withBody = hasBody(request);
                    arm(bodyNanos);
                }
                if (msg instanceof LastHttpContent) {
                    disarm();
                    receiving = false;
                }
                ctx.fireChannelRead(msg);
            }

            /**
             * An answer to a request whose body is still arriving (413 for a body over the size limit, a refusal
             * before the body was read) says {@code Connection: close}, and the connection closes after it. Kept
             * open, it went on reading and discarding whatever the client sent (57 GB in 30 s from one client in an
             * audit), and the body's deadline then answered the same request a second time with a 408; closed
             * without the header, a keep-alive client (Node's fetch) sent its next request into the closed
             * connection. Only a request that has a body can be answered early: one without may be answered before
             * the decoder has passed on its (empty) end.
             */
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                if (msg instanceof HttpResponse response
                        && response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
                    answers++;
                    if (receiving && headDone && withBody && answers == requests) {
                        answeredEarly = true;
                        disarm();
                        HttpUtil.setKeepAlive(response, false);
                    }
                }
                if (answeredEarly && msg instanceof LastHttpContent) {
                    ctx.write(msg, promise.unvoid())
                            .addListener(written -> RawAnswers.closeLingering(ctx.channel(), LINGER_MILLIS));
                    return;
                }
                if (msg instanceof LastHttpContent && !receiving && answers == requests) {
                    // The last answer is ending and no request is arriving: the connection rests from here.
                    connections.idle(ctx.channel());
                }
                ctx.write(msg, promise);
            }
        };

        /** Whether the request announces a body; a length that is no number counts (the decoder refuses it). */
        private static boolean hasBody(HttpRequest request) {
            try {
                return HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
            } catch (NumberFormatException e) {
                return true;
            }
        }

        private void arm(long nanos) {
            disarm();
            deadline = raw.executor().schedule(this::expired, nanos, TimeUnit.NANOSECONDS);
        }

        private void disarm() {
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
        }

        private void expired() {
            deadline = null;
            if (receiving && !answeredEarly && raw.channel().isActive()) {
                // Written below the codec: straight to the socket, whatever state the decoder is in.
                // A head that never ended was not decoded: its first bytes say which surface it was sent to.
                boolean surface = headDone ? controlPlane
                        : UnreadableRequestHeads.targetIsControlPlane(Unpooled.wrappedBuffer(start, 0, startLength));
                raw.writeAndFlush(Unpooled.wrappedBuffer(requestTimeout(surface)))
                        .addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
