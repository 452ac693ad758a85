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
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import jakarta.inject.Singleton;
import java.util.ArrayDeque;

/**
 * HTTP adapter: a request whose body comes chunked is the last one its connection carries. A head with both
 * {@code Transfer-Encoding: chunked} and a {@code Content-Length} is read by the former (Netty's codec drops the
 * latter), and RFC 9112 §6.1 then requires the server to close the connection after answering: a proxy in front that
 * framed the body by its {@code Content-Length} sees other request boundaries than the gateway, so bytes it took for
 * body would run here as a request of their own (request smuggling). The codec has dropped the header before any
 * handler sees the head, so every chunked request is treated that way: its answer carries {@code Connection: close},
 * the connection closes once that answer is sent, and nothing the client sent after the chunked body is read as a
 * request. A client that sends chunked bodies opens a new connection for its next request; the official SDKs send
 * a {@code Content-Length}. Answers to requests read before it on the connection (pipelining) go out first, as usual.
 */
@Singleton
public final class ChunkedRequestsEndConnections implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

    private static final String HANDLER = "tollgate-chunked-requests-end-connections";

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        Http1Connections.register(event.getBean(), HANDLER, pipeline -> pipeline.addAfter(
                ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC, HANDLER, new LastRequest()));
        return event.getBean();
    }

    /** One connection: whether each request still to be answered came chunked, in order. */
    static final class LastRequest extends ChannelDuplexHandler {

        private final ArrayDeque<Boolean> pending = new ArrayDeque<>();
        private boolean chunkedBody;
        private boolean readingStopped;
        private boolean closeAfterThisAnswer;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (readingStopped) {
                ReferenceCountUtil.release(msg); // after a chunked request: never a request of its own
                return;
            }
            if (msg instanceof HttpRequest request) {
                chunkedBody = HttpUtil.isTransferEncodingChunked(request);
                pending.addLast(chunkedBody);
            }
            if (chunkedBody && msg instanceof LastHttpContent) {
                readingStopped = true;
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.INFORMATIONAL
                    && Boolean.TRUE.equals(pending.pollFirst())) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                closeAfterThisAnswer = true;
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
