package dev.tollgate.adapter.in.http.common;

import io.micronaut.http.netty.channel.ChannelPipelineCustomizer;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * HTTP adapter: adds handlers to the pipeline of every HTTP/1.1 connection once Micronaut has built it, around its
 * HTTP codec ({@link ChannelPipelineCustomizer#HANDLER_HTTP_SERVER_CODEC}). Pipelines without that codec (HTTP/2
 * streams) are left alone, and a pipeline is set up once (the handler named {@code marker} says it was).
 */
final class Http1Connections implements NettyServerCustomizer {

    private final Channel channel;
    private final String marker;
    private final Consumer<ChannelPipeline> install;

    private Http1Connections(Channel channel, String marker, Consumer<ChannelPipeline> install) {
        this.channel = channel;
        this.marker = marker;
        this.install = install;
    }

    static void register(NettyServerCustomizer.Registry registry, String marker, Consumer<ChannelPipeline> install) {
        registry.register(new Http1Connections(null, marker, install));
    }

    /**
     * Registers a handler of each connection's own, made by {@code handler}, right after the HTTP codec (where it
     * sees decoded requests and the answers before they are encoded), named {@code name}. Answers {@code registry}.
     */
    static NettyServerCustomizer.Registry afterCodec(NettyServerCustomizer.Registry registry, String name,
            Supplier<ChannelHandler> handler) {
        register(registry, name, pipeline -> pipeline.addAfter(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC,
                name, handler.get()));
        return registry;
    }

    @Override
    public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
        return role == ChannelRole.CONNECTION ? new Http1Connections(channel, marker, install) : this;
    }

    @Override
    public void onStreamPipelineBuilt() {
        ChannelPipeline pipeline = channel == null ? null : channel.pipeline();
        if (pipeline != null && pipeline.get(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC) != null
                && pipeline.get(marker) == null) {
            install.accept(pipeline);
        }
    }

    /**
     * Writes {@code msg}, the last part of an answer, and closes the connection once it is sent. A void promise (the
     * framework's, when it does not wait for the write) takes no listener, so the write is tracked here then.
     */
    static void writeLastThenClose(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ChannelPromise written = promise.isVoid() ? ctx.newPromise() : promise;
        ctx.write(msg, written).addListener(ChannelFutureListener.CLOSE);
        ctx.flush();
    }
}
