package dev.tollgate.application.port.in.traffic;

import dev.tollgate.application.port.in.UseCaseException;

/**
 * The shared store of the traffic limits cannot be reached and the configured failure policy of a check says
 * "closed": the request is refused as temporarily unavailable (503), never admitted unchecked.
 */
public final class TrafficLimitsUnavailableException extends UseCaseException {

    public TrafficLimitsUnavailableException() {
        super("Rate limits cannot be checked right now (their store is unreachable); retry in a moment");
    }

    @Override
    public String code() {
        return "service_unavailable";
    }
}
