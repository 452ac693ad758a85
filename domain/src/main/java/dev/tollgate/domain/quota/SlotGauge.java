package dev.tollgate.domain.quota;

/** Requests in flight against one concurrency cap. Not thread-safe. */
public final class SlotGauge implements QuotaState {

    private long inFlight;

    public long inFlight() {
        return inFlight;
    }

    public boolean hasRoom(long limit) {
        return inFlight < limit;
    }

    public void acquire() {
        inFlight++;
    }

    /** @return whether slots are still in use */
    public boolean release() {
        if (inFlight > 0) {
            inFlight--;
        }
        return inFlight > 0;
    }

    @Override
    public long idleTtlMillis() {
        return inFlight > 0 ? Long.MAX_VALUE : 0;
    }
}
