package dev.tollgate.application.port.in.playground;

import dev.tollgate.application.port.in.UseCaseException;

/** The account's playground key is disabled or expired: its owner stopped the playground from spending. */
public final class PlaygroundKeyUnavailableException extends UseCaseException {

    public PlaygroundKeyUnavailableException() {
        super("Your \"Dashboard playground\" API key is disabled or expired: enable it (or remove its expiry) on the "
                + "API keys page to use the playground with your balance");
    }

    @Override
    public String code() {
        return "playground_key_unavailable";
    }
}
