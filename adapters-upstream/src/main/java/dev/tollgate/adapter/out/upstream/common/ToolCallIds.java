package dev.tollgate.adapter.out.upstream.common;

import java.security.SecureRandom;

/**
 * Upstream adapter support: an id for a tool call a provider sent without one. A client answers a call with a
 * {@code tool} message naming its {@code tool_call_id}, and the SDKs' types require it, so every call has one —
 * unguessable and unique like a provider's, in OpenAI's form ({@code call_} and 24 letters and digits).
 */
public final class ToolCallIds {

    private static final char[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private ToolCallIds() {
    }

    public static String generated() {
        char[] id = new char[24];
        for (int i = 0; i < id.length; i++) {
            id[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
        }
        return "call_" + new String(id);
    }
}
