package dev.tollgate.adapter.in.http.common;

import io.netty.channel.Channel;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * HTTP adapter: what each client connection is doing, so that a full server makes room for a new connection by
 * closing one that does nothing (reliability goal G15). Without it, one client that opened as many connections as
 * the cap allows and sent nothing (or one request, then nothing) locked every other client out until the idle
 * timeout (5 min) closed them — an audit did it from one address in 1.2 s. Only connections that hold no request
 * are given up: idle ones (before their first byte, or resting between requests) for over a second, the longest
 * idle first (a connection just opened may have its request on the way, not read yet); failing those, one whose
 * request head has been arriving for over a second (a head comes in one packet; a slow one is a slowloris). A connection receiving a body or waiting for its answer (a stream included) is never closed for room.
 */
@Singleton
public final class IdleConnections {

    /** A connection idle, or its request head arriving, for longer than this may be given up for a new one. */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private enum Phase { IDLE, HEAD, BUSY }

    private record State(Phase phase, long since) {
    }

    private final Map<Channel, State> connections = new ConcurrentHashMap<>();

    /** The connection holds no request: just opened, or its last answer is sent. */
    void idle(Channel channel) {
        track(channel, Phase.IDLE);
    }

    /** The first bytes of a request's head arrived. */
    void receivingHead(Channel channel) {
        track(channel, Phase.HEAD);
    }

    /** The connection's request head is complete: its body, its work and its answer follow. */
    void busy(Channel channel) {
        track(channel, Phase.BUSY);
    }

    private void track(Channel channel, Phase phase) {
        if (channel.isActive()) {
            connections.put(channel, new State(phase, System.nanoTime()));
        }
    }

    void closed(Channel channel) {
        connections.remove(channel);
    }

    /**
     * Closes the connection that can best be given up for {@code newcomer}, if there is one: the longest idle, else
     * the slowest head over a second old.
     *
     * @return whether one was closed
     */
    boolean giveUpOneFor(Channel newcomer) {
        long now = System.nanoTime();
        Channel idlest = null;
        long idleSince = Long.MAX_VALUE;
        Channel slowest = null;
        long headSince = Long.MAX_VALUE;
        for (Map.Entry<Channel, State> entry : connections.entrySet()) {
            Channel channel = entry.getKey();
            State state = entry.getValue();
            if (channel == newcomer || !channel.isActive()) {
                continue;
            }
            if (now - state.since() <= GRACE_NANOS) {
                continue;
            }
            if (state.phase() == Phase.IDLE && state.since() - idleSince < 0) {
                idlest = channel;
                idleSince = state.since();
            } else if (state.phase() == Phase.HEAD && state.since() - headSince < 0) {
                slowest = channel;
                headSince = state.since();
            }
        }
        Channel victim = idlest != null ? idlest : slowest;
        if (victim == null || connections.remove(victim) == null) {
            return false;
        }
        victim.close();
        return true;
    }
}
