package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.netty.channel.ChannelPipelineCustomizer;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import jakarta.inject.Singleton;
import java.util.ArrayDeque;

/**
 * HTTP adapter: an answer of unknown length (an SSE stream) to an HTTP/1.0 request is sent without chunked framing,
 * which HTTP/1.0 does not know (RFC 9112 §6.1: a server must not send {@code Transfer-Encoding} to an HTTP/1.0
 * client), and ends by closing the connection, the only end such a client can recognise. HTTP/1.1 answers and
 * HTTP/1.0 answers of known length are left alone. Proxies that speak HTTP/1.0 upstream by default (nginx's
 * {@code proxy_http_version}) would otherwise pass chunk-size lines into the event stream.
 */
@Singleton
public final class Http10Streams implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

    private static final String HANDLER = "tollgate-http10-streams";

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        Http1Connections.register(event.getBean(), HANDLER, pipeline -> pipeline.addAfter(
                ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC, HANDLER, new Versions()));
        return event.getBean();
    }

    /** One connection: the versions of the requests whose answers are still to come, in order. */
    static final class Versions extends ChannelDuplexHandler {

        private final ArrayDeque<HttpVersion> pending = new ArrayDeque<>();
        private boolean closeAfterThisAnswer;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest request) {
                pending.addLast(request.protocolVersion());
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof HttpResponse response
                    && response.status().codeClass() != io.netty.handler.codec.http.HttpStatusClass.INFORMATIONAL) {
                HttpVersion version = pending.pollFirst();
                if (version != null && version.equals(HttpVersion.HTTP_1_0)
                        && HttpUtil.isTransferEncodingChunked(response)
                        && !response.status().equals(HttpResponseStatus.SWITCHING_PROTOCOLS)) {
                    HttpUtil.setTransferEncodingChunked(response, false);
                    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                    closeAfterThisAnswer = true;
                }
            }
            if (closeAfterThisAnswer && msg instanceof LastHttpContent) {
                closeAfterThisAnswer = false;
                Http1Connections.writeLastThenClose(ctx, msg, promise);
                return;
            }
            ctx.write(msg, promise);
        }
    }
}
