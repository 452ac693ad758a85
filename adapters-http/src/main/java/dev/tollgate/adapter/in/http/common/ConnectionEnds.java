package dev.tollgate.adapter.in.http.common;

import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import jakarta.inject.Singleton;
import java.util.ArrayDeque;

/**
 * HTTP adapter: the answers after which an HTTP/1.x connection ends. Each says so ({@code Connection: close}) and
 * the connection closes once it is sent.
 * <ul>
 * <li><b>An answer of unknown length (an SSE stream) to an HTTP/1.0 request</b> is sent without chunked framing,
 * which HTTP/1.0 does not know (RFC 9112 §6.1: a server must not send {@code Transfer-Encoding} to an HTTP/1.0
 * client), and ends by closing the connection, the only end such a client can recognise. Proxies that speak
 * HTTP/1.0 upstream by default (nginx's {@code proxy_http_version}) would otherwise pass chunk-size lines into the
 * event stream. HTTP/1.0 answers of known length are left alone.</li>
 * <li><b>The answer to a request whose body came chunked</b>, and nothing the client sent after that body is read
 * as a request. A head with both {@code Transfer-Encoding: chunked} and a {@code Content-Length} is read by the
 * former (Netty's codec drops the latter), and RFC 9112 §6.1 then requires the server to close the connection
 * after answering: a proxy in front that framed the body by its {@code Content-Length} sees other request
 * boundaries than the gateway, so bytes it took for body would run here as a request of their own (request
 * smuggling). The codec has dropped the header before any handler sees the head, so every chunked request is
 * treated that way; a client that sends chunked bodies opens a new connection for its next request (the official
 * SDKs send a {@code Content-Length}).</li>
 * </ul>
 * Answers to requests read before on the same connection (pipelining) go out first, as usual.
 */
@Singleton
public final class ConnectionEnds implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {

    private static final String HANDLER = "tollgate-connection-ends";

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        return Http1Connections.afterCodec(event.getBean(), HANDLER, PerConnection::new);
    }

    /** One connection: what each request still to be answered was, in order. */
    static final class PerConnection extends ChannelDuplexHandler {

        private record Asked(HttpVersion version, boolean chunkedBody) {
        }

        private final ArrayDeque<Asked> pending = new ArrayDeque<>();
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
                pending.addLast(new Asked(request.protocolVersion(), chunkedBody));
            }
            if (chunkedBody && msg instanceof LastHttpContent) {
                readingStopped = true;
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
                Asked asked = pending.pollFirst();
                if (asked != null && asked.version().equals(HttpVersion.HTTP_1_0)
                        && HttpUtil.isTransferEncodingChunked(response)
                        && !response.status().equals(HttpResponseStatus.SWITCHING_PROTOCOLS)) {
                    HttpUtil.setTransferEncodingChunked(response, false);
                    closeAfterThisAnswer = true;
                }
                if (asked != null && asked.chunkedBody()) {
                    closeAfterThisAnswer = true;
                }
                if (closeAfterThisAnswer) {
                    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
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
