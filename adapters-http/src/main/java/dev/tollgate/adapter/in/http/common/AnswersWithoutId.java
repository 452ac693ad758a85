package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.netty.channel.ChannelPipelineCustomizer;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import jakarta.inject.Singleton;

/**
 * HTTP adapter: the last word on {@code x-request-id} being on every response (§2.4). {@link RequestIds} puts the
 * request's own id on every answer that passes the filters after routing; a few are given before that — a CORS
 * preflight, which Micronaut's CORS filter answers before the route is matched, so no later filter sees it. Such an
 * answer leaves the connection with an id of its own.
 */
@Singleton
public final class AnswersWithoutId implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

    private static final String NAME = "tollgate-answers-without-id";
    private static final ChannelHandler ADD_ID = new AddId();

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        Http1Connections.register(event.getBean(), NAME,
                pipeline -> pipeline.addAfter(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC, NAME, ADD_ID));
        return event.getBean();
    }

    /** Stateless, so one instance serves every connection. */
    @ChannelHandler.Sharable
    private static final class AddId extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            // Not on an interim answer (100 Continue): Netty and Micronaut share one instance of it between requests,
            // and the request's own id comes with its final answer.
            if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.INFORMATIONAL
                    && !response.headers().contains(RequestIds.HEADER)) {
                response.headers().set(RequestIds.HEADER, RequestIds.newId());
            }
            ctx.write(msg, promise);
        }
    }
}
