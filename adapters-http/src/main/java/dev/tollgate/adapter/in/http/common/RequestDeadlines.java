package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.netty.channel.ChannelPipelineCustomizer;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
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

    private static final String TIMEOUT_BODY = "{\"error\":{\"message\":\"The request was not received in time; "
            + "send it faster\",\"type\":\"invalid_request_error\",\"code\":\"request_timeout\",\"param\":null}}";

    /** The 408, with a request id of its own like every other answer. */
    private static byte[] requestTimeout() {
        return ("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json\r\n"
                + RequestIds.HEADER + ": " + RequestIds.newId() + "\r\nContent-Length: " + TIMEOUT_BODY.length()
                + "\r\n\r\n" + TIMEOUT_BODY).getBytes(StandardCharsets.US_ASCII);
    }

    private final long headNanos;
    private final long bodyNanos;

    RequestDeadlines(@Value("${tollgate.http.request-head-timeout:10s}") Duration head,
            @Value("${tollgate.http.request-body-timeout:30s}") Duration body) {
        this.headNanos = head.toNanos();
        this.bodyNanos = body.toNanos();
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
        private ScheduledFuture<?> deadline;
        private ChannelHandlerContext raw;

        final ChannelDuplexHandler bytes = new ChannelDuplexHandler() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                raw = ctx;
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (!receiving && msg instanceof ByteBuf buf && buf.isReadable()) {
                    receiving = true;
                    headDone = false;
                    arm(headNanos);
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                disarm();
                ctx.fireChannelInactive();
            }
        };

        final ChannelInboundHandlerAdapter messages = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpRequest && !headDone) {
                    headDone = true;
                    arm(bodyNanos);
                }
                if (msg instanceof LastHttpContent) {
                    disarm();
                    receiving = false;
                }
                ctx.fireChannelRead(msg);
            }
        };

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
            if (receiving && raw.channel().isActive()) {
                // Written below the codec: straight to the socket, whatever state the decoder is in.
                raw.writeAndFlush(Unpooled.wrappedBuffer(requestTimeout())).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
