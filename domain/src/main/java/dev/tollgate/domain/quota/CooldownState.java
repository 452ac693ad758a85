package dev.tollgate.domain.quota;

/**
 * §8.1 local request-limit cooldown of one scope: the times of its latest request-limit blocks and the end of a
 * running cooldown. The block that makes enough of them within the rule's window activates the cooldown at once:
 * with the default rule, blocks at t = 0, 10 and 20 s cool the scope down from t = 20 s for the whole configured
 * length — the third refusal already says so in its {@code Retry-After}, so a client that waits as told is not
 * refused again; blocks at t = 0, 30 and 61 s do not (G8). Not thread-safe.
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

    /** The milliseconds left of a running cooldown at {@code now} (0: none). */
    public long remainingMillis(long now) {
        return until > now ? until - now : 0;
    }

    /** A cooldown another store reported: it runs here until {@code end} too (a longer one here is kept). */
    public void holdUntil(long end) {
        until = Math.max(until, end);
    }

    /**
     * Records a request-limit block at {@code now}; when it makes the rule's number of blocks within its window,
     * the cooldown starts now (the blocks are forgotten) and this answers its length in milliseconds, else 0.
     */
    public long recordBlock(long now) {
        blocks[next] = now;
        next = (next + 1) % blocks.length;
        count = Math.min(count + 1, blocks.length);
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

    @Override
    public long idleTtlMillis() {
        return rule.within().toMillis() + rule.cooldown().toMillis();
    }
}
