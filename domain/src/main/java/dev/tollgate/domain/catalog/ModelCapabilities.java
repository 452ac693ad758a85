package dev.tollgate.domain.catalog;

import java.util.ArrayList;
import java.util.List;

/**
 * What a model/provider pair supports beyond plain chat (§2.3: support depends on the pair): {@code images} is
 * image parts ({@code image_url}) in message content; {@code seed} whether the pair is sent the request's seed.
 */
public record ModelCapabilities(boolean tools, boolean responseFormat, boolean logprobs, boolean seed,
        boolean images) {

    public static final ModelCapabilities ALL = new ModelCapabilities(true, true, true, true, true);

    /** The name a missing image capability goes by in {@link #missing}. */
    public static final String IMAGE_INPUT = "image input";

    /** A pair without image input. */
    public ModelCapabilities(boolean tools, boolean responseFormat, boolean logprobs, boolean seed) {
        this(tools, responseFormat, logprobs, seed, false);
    }

    /** The request field a name of {@link #missing} stands for. */
    public static String requestField(String missing) {
        return IMAGE_INPUT.equals(missing) ? "messages" : missing;
    }

    /** The request fields (by their §2.3 names) this pair cannot serve. */
    public List<String> missing(RequestedFeatures requested) {
        List<String> missing = new ArrayList<>();
        if (requested.tools() && !tools) {
            missing.add("tools");
        }
        if (requested.responseFormat() && !responseFormat) {
            missing.add("response_format");
        }
        if (requested.logprobs() && !logprobs) {
            missing.add("logprobs");
        }
        if (requested.images() && !images) {
            missing.add(IMAGE_INPUT);
        }
        return missing;
    }

    /**
     * The optional features a request asks for that a pair must serve. Not {@code seed}: §2.3 makes it best-effort
     * repeatability, so it is passed on where the pair takes it ({@link #seed}) and never refuses a request.
     */
    public record RequestedFeatures(boolean tools, boolean responseFormat, boolean logprobs, boolean images) {

        /** A request without image parts. */
        public RequestedFeatures(boolean tools, boolean responseFormat, boolean logprobs) {
            this(tools, responseFormat, logprobs, false);
        }
    }
}
