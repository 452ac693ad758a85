package dev.tollgate.domain.completion;

import java.util.Objects;

/**
 * One chat message: its role, its text (all text parts joined; may be empty, e.g. for a tool call), the message
 * exactly as the client sent it, as JSON, for providers that take the chat-completions format as is, and what else
 * of it goes upstream and is billed as prompt: {@code extra}, the other texts it carries (a tool call's name and
 * arguments, a participant {@code name}, a {@code tool_call_id}), and {@code images}, its image parts.
 */
public record ChatMessage(String role, String text, String json, String extra, int images) {

    public ChatMessage {
        Objects.requireNonNull(role);
        Objects.requireNonNull(text);
        Objects.requireNonNull(json);
        Objects.requireNonNull(extra);
        if (images < 0) {
            throw new IllegalArgumentException("images must not be negative");
        }
    }

    /** A message of text only. */
    public ChatMessage(String role, String text, String json) {
        this(role, text, json, "", 0);
    }
}
