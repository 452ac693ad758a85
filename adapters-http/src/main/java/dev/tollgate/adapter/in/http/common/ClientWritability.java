package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.server.netty.NettyHttpRequest;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import jakarta.inject.Singleton;

/**
 * HTTP adapter: whether the client takes what is written to it. Netty calls a connection unwritable once more than
 * its high-water mark waits to be sent (the client reads slower than the server writes) and writable again once
 * that fell below the low-water mark; a stream uses it to hold its provider back rather than let the answer pile up
 * in memory ({@code SseStream}).
 */
@Singleton
public final class ClientWritability implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

    private static final String HANDLER = "tollgate-client-writability";
    private static final AttributeKey<Runnable> ON_WRITABLE = AttributeKey.valueOf("tollgate-on-writable");
    private static final ChannelHandler WATCH = new Watch();

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        return Http1Connections.afterCodec(event.getBean(), HANDLER, () -> WATCH);
    }

    /** Whether the connection of {@code request} takes more now (true when it is no Netty connection). */
    public static boolean writable(HttpRequest<?> request) {
        Channel channel = channelOf(request);
        return channel == null || channel.isWritable();
    }

    /**
     * Runs {@code action} on the connection's event loop (it must not block) each time the connection of
     * {@code request} becomes writable again, until the returned handle is run. One action per connection.
     */
    public static Runnable onWritable(HttpRequest<?> request, Runnable action) {
        Channel channel = channelOf(request);
        if (channel == null) {
            return () -> { };
        }
        channel.attr(ON_WRITABLE).set(action);
        return () -> channel.attr(ON_WRITABLE).compareAndSet(action, null);
    }

    /**
     * The event loop of the connection of {@code request}, where what is written to it is written without a hand-off
     * (runs in place when it is no Netty connection, or the loop is shutting down).
     */
    public static java.util.concurrent.Executor eventLoopOf(HttpRequest<?> request) {
        Channel channel = channelOf(request);
        if (channel == null) {
            return Runnable::run;
        }
        return task -> {
            try {
                channel.eventLoop().execute(task);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                task.run();
            }
        };
    }

    private static Channel channelOf(HttpRequest<?> request) {
        return request instanceof NettyHttpRequest<?> netty ? netty.getChannelHandlerContext().channel() : null;
    }

    /** Passes writability changes on, and tells the connection's watcher when it can take more. */
    @ChannelHandler.Sharable
    private static final class Watch extends ChannelInboundHandlerAdapter {
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                Runnable action = ctx.channel().attr(ON_WRITABLE).get();
                if (action != null) {
                    action.run();
                }
            }
            ctx.fireChannelWritabilityChanged();
        }
    }
}
