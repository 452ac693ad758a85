package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.micronaut.json.JsonMapper;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * HTTP adapter: at most {@code tollgate.http.max-connections} (10,000) client connections are open at once (reliability
 * goal G15). One more takes the place of a connection that holds no request ({@link IdleConnections}); when every
 * connection is at work, it is answered {@code 503 service_unavailable} with {@code Retry-After: 1} and closed,
 * before anything of it is read: without a cap a flood of idle connections would use up the process's file
 * descriptors, and with them the connections to the database and the upstreams that every request needs.
 */
@Singleton
public final class ConnectionCap implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

    /** How long a refused connection goes on reading (and dropping) what it was sent before it closes. */
    private static final long LINGER_MILLIS = 1_000;

    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final JsonMapper json;
    private final Clock clock;
    private final IdleConnections idle;

    ConnectionCap(@Value("${tollgate.http.max-connections:10000}") int max, JsonMapper json, Clock clock,
            IdleConnections idle) {
        if (max < 1) {
            throw new IllegalArgumentException("tollgate.http.max-connections must be at least 1, was " + max);
        }
        this.max = max;
        this.json = json;
        this.clock = clock;
        this.idle = idle;
    }

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        event.getBean().register(new Counting(null));
        return event.getBean();
    }

    private byte[] refusal() {
        return RawAnswers.error(json, clock, false, HttpStatus.SERVICE_UNAVAILABLE, "The gateway has " + max
                + " connections open, as many as it takes; retry in a moment",
                ApiErrors.genericModelError(HttpStatus.SERVICE_UNAVAILABLE, null), "Retry-After: 1\r\n");
    }

    private final class Counting implements NettyServerCustomizer {
        private final Channel channel;
        private boolean counted;

        Counting(Channel channel) {
            this.channel = channel;
        }

        @Override
        public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
            return role == ChannelRole.CONNECTION ? new Counting(channel) : this;
        }

        @Override
        public void onInitialPipelineBuilt() {
            counted();
        }

        @Override
        public void onStreamPipelineBuilt() {
            counted();
        }

        /** Counts the connection once, whichever of the pipeline events comes first for it. */
        private void counted() {
            if (channel == null || counted) {
                return;
            }
            counted = true;
            int now = open.incrementAndGet();
            channel.closeFuture().addListener(closed -> open.decrementAndGet());
            if (now > max && !idle.giveUpOneFor(channel)) {
                // Written below the HTTP codec, straight to the socket: nothing of the connection is read.
                channel.pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(refusal()))
                        .addListener(written -> RawAnswers.closeLingering(channel, LINGER_MILLIS));
            }
        }
    }
}
