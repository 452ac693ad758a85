package dev.tollgate.domain.catalog;

import java.util.ArrayList;
import java.util.List;

/** What a model/provider pair supports beyond plain chat (§2.3: support depends on the pair). */
public record ModelCapabilities(boolean tools, boolean responseFormat, boolean logprobs, boolean seed) {

    public static final ModelCapabilities ALL = new ModelCapabilities(true, true, true, true);

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
        if (requested.seed() && !seed) {
            missing.add("seed");
        }
        return missing;
    }

    /** The optional features a request asks for. */
    public record RequestedFeatures(boolean tools, boolean responseFormat, boolean logprobs, boolean seed) {
    }
}
