package dev.tollgate.domain.quota;

/**
 * §8.1 local request-limit cooldown of one scope: the times of its latest request-limit blocks and the end of a
 * running cooldown. With the default rule, blocks at t = 0, 10 and 20 s put the next request (t = 21 s) into a
 * cooldown of the whole configured length; blocks at t = 0, 30 and 61 s do not (G8). Not thread-safe.
 */
public final class CooldownState implements QuotaState {

    private final CooldownRule rule;
    private final long[] blocks;
    private int count;
    private int next;
    private long until = Long.MIN_VALUE;

    public CooldownState(CooldownRule rule) {
        this.rule = rule;
        this.blocks = new long[rule.blocks()];
    }

    /**
     * 0 when a request of this scope may go on to the limits; else the milliseconds of cooldown left. Starts the
     * cooldown when enough blocks lie within the rule's window before {@code now}.
     */
    public long cooldownMillis(long now) {
        long left = remainingMillis(now);
        if (left > 0) {
            return left;
        }
        long within = rule.within().toMillis();
        int recent = 0;
        for (int i = 0; i < count; i++) {
            if (blocks[i] > now - within && blocks[i] <= now) {
                recent++;
            }
        }
        if (recent < rule.blocks()) {
            return 0;
        }
        until = now + rule.cooldown().toMillis();
        count = 0;
        next = 0;
        return until - now;
    }

    /** The milliseconds left of a running cooldown at {@code now} (0: none), without starting one. */
    public long remainingMillis(long now) {
        return until > now ? until - now : 0;
    }

    public void recordBlock(long now) {
        blocks[next] = now;
        next = (next + 1) % blocks.length;
        count = Math.min(count + 1, blocks.length);
    }

    @Override
    public long idleTtlMillis() {
        return rule.within().toMillis() + rule.cooldown().toMillis();
    }
}
