package dev.tollgate.adapter.in.http.keys;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tollgate.adapter.in.http.common.ApiErrors;
import dev.tollgate.application.port.in.keys.ApiKeyDetails;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.apikey.SpendLimit;
import dev.tollgate.domain.shared.Usd;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.math.BigDecimal;
import java.time.Instant;

/**
 * HTTP response: the §2.1 key record, every field always present ({@code null} when unset), plus the
 * OpenRouter compatibility fields the {@code @openrouter/sdk} requires (sdk-contract.md). USD as JSON numbers.
 */
@Serdeable
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ApiKeyRecord(
        String hash,
        String name,
        String label,
        boolean disabled,
        @Nullable BigDecimal limit,
        @JsonProperty("limit_remaining") @Nullable BigDecimal limitRemaining,
        @JsonProperty("limit_reset") @Nullable String limitReset,
        @JsonProperty("include_byok_in_limit") boolean includeByokInLimit,
        BigDecimal usage,
        @JsonProperty("usage_daily") BigDecimal usageDaily,
        @JsonProperty("usage_weekly") BigDecimal usageWeekly,
        @JsonProperty("usage_monthly") BigDecimal usageMonthly,
        @JsonProperty("byok_usage") BigDecimal byokUsage,
        @JsonProperty("byok_usage_daily") BigDecimal byokUsageDaily,
        @JsonProperty("byok_usage_weekly") BigDecimal byokUsageWeekly,
        @JsonProperty("byok_usage_monthly") BigDecimal byokUsageMonthly,
        @JsonProperty("created_at") String createdAt,
        @JsonProperty("updated_at") @Nullable String updatedAt,
        @JsonProperty("expires_at") @Nullable String expiresAt,
        @JsonProperty("creator_user_id") @Nullable String creatorUserId,
        @JsonProperty("external_user") @Nullable String externalUser,
        @JsonProperty("workspace_id") String workspaceId) {

    public static ApiKeyRecord of(ApiKeyDetails details) {
        ApiKey key = details.key();
        SpendLimit limit = key.limit().orElse(null);
        BigDecimal zero = BigDecimal.ZERO;
        return new ApiKeyRecord(
                key.hash().hex(),
                key.name().value(),
                key.label(),
                key.disabled(),
                limit == null ? null : limit.amount().toDollars(),
                details.limitRemaining().map(Usd::toDollars).orElse(null),
                limit == null ? null : limit.resetPeriod().map(LimitReset::wireName).orElse(null),
                false,
                details.usage().total().toDollars(),
                details.usage().daily().toDollars(),
                details.usage().weekly().toDollars(),
                details.usage().monthly().toDollars(),
                zero, zero, zero, zero,
                timestamp(key.createdAt()),
                timestamp(key.updatedAt()),
                key.expiresAt().map(ApiKeyRecord::timestamp).orElse(null),
                null,
                null,
                key.accountId().toString());
    }

    private static String timestamp(Instant instant) {
        return ApiErrors.MILLIS_UTC.format(instant);
    }
}
