package dev.tollgate.adapter.in.http.keys;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.serde.annotation.Serdeable;
import java.util.List;

/** HTTP responses of {@code /api/v1/keys} (§4.1, sdk-contract.md). */
public final class KeyResponses {

    private KeyResponses() {
    }

    /** {@code { data: <record> }}. */
    @Serdeable
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record One(ApiKeyRecord data) {
    }

    /** {@code { data: [<record>, ...] }}. */
    @Serdeable
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Page(List<ApiKeyRecord> data) {
    }

    /** {@code { key: <raw gp- key>, data: <record> }}: the only response that ever carries a raw key (§2.2). */
    @Serdeable
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Created(String key, ApiKeyRecord data) {
    }

    /** {@code { deleted: true }}. */
    @Serdeable
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Deleted(boolean deleted) {
    }
}
