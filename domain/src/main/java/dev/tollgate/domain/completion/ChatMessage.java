package dev.tollgate.domain.completion;

import java.util.Objects;

/**
 * One chat message: its role, its text (all text parts joined; may be empty, e.g. for a tool call) and the
 * message exactly as the client sent it, as JSON, for providers that take the chat-completions format as is.
 */
public record ChatMessage(String role, String text, String json) {

    public ChatMessage {
        Objects.requireNonNull(role);
        Objects.requireNonNull(text);
        Objects.requireNonNull(json);
    }
}
