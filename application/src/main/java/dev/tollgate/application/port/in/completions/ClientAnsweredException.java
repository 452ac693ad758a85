package dev.tollgate.application.port.in.completions;

import dev.tollgate.application.port.in.UseCaseException;

/**
 * The request's client was answered before its admission ended ({@link CompletionObserver#onReady()} said so): the
 * surface stopped waiting for a slow store and answered 503. Nothing ran and nothing was charged; the answer given is
 * the one that stands.
 */
public final class ClientAnsweredException extends UseCaseException {

    public ClientAnsweredException() {
        super("The request could not be admitted in time; nothing was sent upstream or charged");
    }

    @Override
    public String code() {
        return "service_unavailable";
    }
}
