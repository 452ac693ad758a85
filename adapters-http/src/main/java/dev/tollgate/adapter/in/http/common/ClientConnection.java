package dev.tollgate.adapter.in.http.common;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.server.netty.NettyHttpRequest;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;

/**
 * HTTP adapter: tells when the client's connection closes, so work done on its behalf (an upstream completion) can
 * stop at once. Micronaut does not cancel a pending response when the client leaves before it is written, so
 * this watches the Netty channel itself.
 */
public final class ClientConnection {

    private ClientConnection() {
    }

    /** Closes the connection of {@code request} (a client that stopped reading); its close listeners run. */
    public static void close(HttpRequest<?> request) {
        if (request instanceof NettyHttpRequest<?> netty) {
            netty.getChannelHandlerContext().channel().close();
        }
    }

    /** Whether the connection of {@code request} is closed (the client left). */
    public static boolean isClosed(HttpRequest<?> request) {
        return request instanceof NettyHttpRequest<?> netty && !netty.getChannelHandlerContext().channel().isActive();
    }

    /**
     * Runs {@code action} (on the event loop: it must not block) when the connection of {@code request} closes.
     *
     * @return stops watching; call it when the response is complete, so kept-alive connections do not collect
     *         listeners
     */
    public static Runnable onClose(HttpRequest<?> request, Runnable action) {
        if (!(request instanceof NettyHttpRequest<?> netty)) {
            return () -> { };
        }
        Channel channel = netty.getChannelHandlerContext().channel();
        GenericFutureListener<Future<? super Void>> listener = closed -> action.run();
        channel.closeFuture().addListener(listener);
        return () -> channel.closeFuture().removeListener(listener);
    }
}
