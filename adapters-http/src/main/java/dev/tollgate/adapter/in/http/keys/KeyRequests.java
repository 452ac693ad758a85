package dev.tollgate.adapter.in.http.keys;

import dev.tollgate.adapter.in.http.common.ApiErrors;
import dev.tollgate.adapter.in.http.common.InvalidRequestException;
import dev.tollgate.adapter.in.http.common.JsonObjectBody;
import dev.tollgate.application.port.in.keys.ApiKeyNotFoundException;
import dev.tollgate.application.port.in.keys.CreateApiKeyCommand;
import dev.tollgate.application.port.in.keys.ListApiKeysQuery;
import dev.tollgate.domain.apikey.ApiKey;
import dev.tollgate.domain.apikey.ApiKeyChanges;
import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.shared.FieldChange;
import dev.tollgate.domain.shared.KeyHash;
import dev.tollgate.domain.shared.KeyName;
import dev.tollgate.domain.shared.Rfc3339;
import dev.tollgate.domain.shared.Usd;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * HTTP adapter: reads the request shapes of {@code /api/v1/keys} (§4.1) into commands. Shape errors (types,
 * unknown fields, malformed timestamps) are refused here; business rules stay in the domain.
 */
final class KeyRequests {

    static final Set<String> CREATE_FIELDS = Set.of("name", "limit", "limit_reset", "expires_at");
    static final Set<String> UPDATE_FIELDS = Set.of("name", "disabled", "limit", "limit_reset", "expires_at");
    private static final BigDecimal MAX_LIMIT_DOLLARS = new BigDecimal("1000000000000"); // $1e12


    private static final Pattern OFFSET = Pattern.compile("[0-9]+");

    /** Half a micro-dollar: an amount rounds half-up to the next micro-dollar from here. */
    private static final BigDecimal HALF_MICRO = new BigDecimal("0.0000005");

    private KeyRequests() {
    }

    static CreateApiKeyCommand create(JsonObjectBody body) {
        requireKnownFields(body, CREATE_FIELDS);
        if (!body.has("name") || body.isNull("name")) {
            throw new InvalidRequestException("name", "name is required: a display name of 1 to "
                    + KeyName.MAX_LENGTH + " characters");
        }
        KeyName name = KeyName.chosen(body.string("name"));
        Usd limit = body.has("limit") && !body.isNull("limit") ? limit(body) : null;
        if (body.has("limit_reset") && !body.has("limit")) {
            // §4.1 rule 2, whatever the value: a period, or null / "" for none, is still limit_reset sent.
            throw new InvalidRequestException("limit_reset", ApiKey.LIMIT_RESET_REQUIRES_LIMIT);
        }
        LimitReset reset = body.has("limit_reset") ? limitReset(body) : null;
        Instant expiresAt = body.has("expires_at") && !body.isNull("expires_at") ? timestamp(body, "expires_at") : null;
        return new CreateApiKeyCommand(name, limit, reset, expiresAt);
    }

    static ApiKeyChanges update(JsonObjectBody body) {
        requireKnownFields(body, UPDATE_FIELDS);
        FieldChange<KeyName> name = body.has("name")
                ? (body.isNull("name") ? FieldChange.clear() : FieldChange.set(KeyName.chosen(body.string("name"))))
                : FieldChange.keep();
        FieldChange<Boolean> disabled = body.has("disabled")
                ? (body.isNull("disabled") ? FieldChange.clear() : FieldChange.set(body.bool("disabled")))
                : FieldChange.keep();
        FieldChange<Usd> limit = body.has("limit")
                ? (body.isNull("limit") ? FieldChange.clear() : FieldChange.set(limit(body)))
                : FieldChange.keep();
        FieldChange<LimitReset> reset = FieldChange.keep();
        if (body.has("limit_reset")) {
            LimitReset value = limitReset(body);
            reset = value == null ? FieldChange.clear() : FieldChange.set(value);
        }
        FieldChange<Instant> expiresAt = body.has("expires_at")
                ? (body.isNull("expires_at") ? FieldChange.clear() : FieldChange.set(timestamp(body, "expires_at")))
                : FieldChange.keep();
        return new ApiKeyChanges(name, disabled, limit, reset, expiresAt);
    }

    static ListApiKeysQuery list(String offset, String includeDisabled) {
        int parsedOffset = 0;
        if (offset != null) {
            // Plain digits only: no sign, spaces or exponent (what Integer.parseInt would also take is refused);
            // leading zeros as many as sent (an audit found 9 taken and a 10th refused).
            String digits = OFFSET.matcher(offset).matches() ? offset.replaceFirst("^0+(?=.)", "") : "";
            parsedOffset = !digits.isEmpty() && digits.length() <= 9 ? Integer.parseInt(digits) : -1;
            if (parsedOffset < 0 || parsedOffset > ListApiKeysQuery.MAX_OFFSET) {
                throw new InvalidRequestException("offset", "offset must be an integer from 0 to "
                        + ListApiKeysQuery.MAX_OFFSET + ", got '" + ApiErrors.shown(offset, 32) + "'");
            }
        }
        boolean include = false;
        if (includeDisabled != null) {
            String value = includeDisabled.strip().toLowerCase(Locale.ROOT);
            if (!value.equals("true") && !value.equals("false")) {
                throw new InvalidRequestException("include_disabled",
                        "include_disabled must be true or false, got '" + ApiErrors.shown(includeDisabled, 32) + "'");
            }
            include = value.equals("true");
        }
        return new ListApiKeysQuery(parsedOffset, include);
    }

    /** A path segment that is not a 64-hex hash cannot name any key: §4.1 rule 8. */
    static KeyHash hash(String segment) {
        return KeyHash.parse(segment).orElseThrow(ApiKeyNotFoundException::new);
    }

    private static void requireKnownFields(JsonObjectBody body, Set<String> allowed) {
        for (String field : body.names()) {
            if (allowed.contains(field)) {
                continue;
            }
            if (field.contains("byok")) {
                // §4.1 rule 6
                throw new InvalidRequestException(field, field + " is not supported: Tollgate has no "
                        + "bring-your-own-key billing, so remove the field");
            }
            throw new InvalidRequestException(field, "Unknown field '" + field + "'; allowed fields are "
                    + String.join(", ", allowed.stream().sorted().toList()));
        }
    }

    private static Usd limit(JsonObjectBody body) {
        BigDecimal dollars = body.number("limit");
        if (dollars.signum() <= 0) {
            throw new InvalidRequestException("limit", "limit must be a positive USD amount, got "
                    + ApiErrors.shown(dollars));
        }
        // Both bounds apply to the limit as stored, rounded half-up to the micro-dollar (docs/decisions.md).
        if (dollars.compareTo(MAX_LIMIT_DOLLARS.add(HALF_MICRO)) >= 0) {
            throw new InvalidRequestException("limit", "limit must be at most " + MAX_LIMIT_DOLLARS.toPlainString()
                    + " USD");
        }
        Usd amount = Usd.ofDollars(dollars);
        if (amount.isZero()) {
            throw new InvalidRequestException("limit", "limit must be at least 0.000001 USD, got "
                    + ApiErrors.shown(dollars));
        }
        return amount;
    }

    /** {@code null}, absent or empty means a lifetime cap (§2.1). */
    private static LimitReset limitReset(JsonObjectBody body) {
        if (body.isNull("limit_reset")) {
            return null;
        }
        String value = body.string("limit_reset");
        if (value.isEmpty()) {
            return null;
        }
        return LimitReset.fromWireName(value).orElseThrow(() -> new InvalidRequestException("limit_reset",
                "limit_reset must be one of daily, weekly, monthly (or null for a lifetime limit), got '"
                        + ApiErrors.shown(value, 32) + "'"));
    }

    private static Instant timestamp(JsonObjectBody body, String field) {
        String value = body.string(field);
        // As sent: whitespace or line breaks around it are no part of a timestamp (the other fields are read as
        // strictly; a client that sends them has a bug worth hearing about).
        Instant instant;
        try {
            instant = Rfc3339.parse(value);
        } catch (DateTimeParseException e) {
            throw new InvalidRequestException(field, field + " must be an ISO 8601 / RFC 3339 timestamp with a "
                    + "four-digit year and a time zone, of a date and time that exist, e.g. 2030-01-31T23:59:59Z, "
                    + "got '" + ApiErrors.shown(value, 64) + "'");
        }
        // The four-digit year is the stored (UTC) one: 9999-12-31T23:30:00-05:00 is already in year 10000.
        if (instant.isAfter(Rfc3339.LAST_INSTANT)) {
            throw new InvalidRequestException(field, field + " must lie before the year 10000 in UTC, got '"
                    + ApiErrors.shown(value, 64) + "'");
        }
        return instant;
    }
}
