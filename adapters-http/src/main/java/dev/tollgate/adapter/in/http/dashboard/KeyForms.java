package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.domain.apikey.LimitReset;
import dev.tollgate.domain.shared.Usd;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * HTTP adapter: the fields of the dashboard's key forms, read the way {@code /api/v1/keys} reads its JSON — a USD
 * limit as a positive decimal (rounded half-up to 1 µUSD, at most 10^12), a reset period of {@code daily},
 * {@code weekly} or {@code monthly} (empty: lifetime), an expiry as a UTC date and time ({@code datetime-local}).
 * An empty limit or expiry means none. Shape only: the business rules (reset needs a limit, a future expiry) are
 * the domain's, through the same use cases as the API.
 */
final class KeyForms {

    private static final BigDecimal MAX_LIMIT_DOLLARS = new BigDecimal("1000000000000");
    // Decimals as many as the JSON API takes (its reader's limit: 64), rounded half-up to the micro-dollar like it.
    private static final Pattern THOUSANDS = Pattern.compile("[0-9]{1,3}(,[0-9]{3})+(\\.[0-9]{0,64})?");
    private static final Pattern PLAIN_AMOUNT = Pattern.compile("[0-9]{1,16}(\\.[0-9]{0,64})?|\\.[0-9]{1,64}");
    /** The value a {@code datetime-local} input shows: to the minute. */
    private static final DateTimeFormatter INPUT = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm");
    /**
     * What a {@code datetime-local} input sends: to the minute, or with seconds and a fraction. It is then parsed
     * strictly (ISO), so a date or time that does not exist is refused, not moved.
     */
    private static final Pattern DATETIME_LOCAL = Pattern.compile(
            "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?");

    private KeyForms() {
    }

    /** A field the visitor filled in wrongly: its name and a sentence to show next to the form. */
    static final class FieldError extends RuntimeException {
        FieldError(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The limit in USD, or null when the field is empty: plain ASCII digits with an optional decimal point and up to
     * 12 decimals, so no exponent (a short {@code 1e-100000000} would take minutes to round) and no other script's
     * digits ({@code BigDecimal} reads them).
     */
    static Usd limit(Map<String, String> form) {
        String typed = form.getOrDefault("limit", "").strip().replace("$", "");
        if (typed.isEmpty()) {
            return null;
        }
        if (typed.indexOf(',') >= 0) {
            // Only as thousands separators (1,000.50): "5,00" is five dollars written the European way, and must
            // not become a cap of 500.
            if (!THOUSANDS.matcher(typed).matches()) {
                throw new FieldError("The limit must be an amount in US dollars with a dot before the cents, e.g. "
                        + "5.00 or 1,000.50 (a comma only between thousands).");
            }
            typed = typed.replace(",", "");
        }
        if (!PLAIN_AMOUNT.matcher(typed).matches()) {
            throw new FieldError("The limit must be an amount in US dollars, e.g. 5 or 12.50.");
        }
        BigDecimal dollars = new BigDecimal(typed);
        if (dollars.signum() <= 0 || dollars.compareTo(MAX_LIMIT_DOLLARS) > 0) {
            throw new FieldError("The limit must be more than $0 and at most $1,000,000,000,000.");
        }
        Usd amount = Usd.ofDollars(dollars);
        if (amount.isZero()) {
            throw new FieldError("The limit must be at least $0.000001.");
        }
        return amount;
    }

    /** The reset period, or null for a lifetime limit (empty field). */
    static LimitReset reset(Map<String, String> form) {
        String typed = form.getOrDefault("limit_reset", "").strip();
        if (typed.isEmpty()) {
            return null;
        }
        return LimitReset.fromWireName(typed).orElseThrow(
                () -> new FieldError("The reset period must be daily, weekly, monthly or none."));
    }

    /** The expiry (UTC), or null when the field is empty. */
    static Instant expiry(Map<String, String> form) {
        String typed = form.getOrDefault("expires_at", "").strip();
        if (typed.isEmpty()) {
            return null;
        }
        try {
            // What a datetime-local input sends: to the minute, or with seconds (and milliseconds) that are cut.
            // Anything else — an offset, a zone, trailing text — is refused, never read as something else.
            if (!DATETIME_LOCAL.matcher(typed).matches()) {
                throw new DateTimeParseException("not a datetime-local value", typed, 0);
            }
            // Seconds that do not exist (:60, :99) are refused like a day that does not exist.
            return LocalDateTime.parse(typed, DateTimeFormatter.ISO_LOCAL_DATE_TIME).truncatedTo(ChronoUnit.MINUTES)
                    .toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new FieldError("The expiry must be a date and time (UTC), e.g. 2030-01-31T23:59.");
        }
    }

    /** The value of a {@code datetime-local} input for an instant (UTC, to the minute). */
    static String inputValue(Instant instant) {
        return instant == null ? "" : INPUT.format(instant.atOffset(ZoneOffset.UTC));
    }

    /** A limit for an input field: plain decimal dollars, no sign. */
    static String inputValue(Usd amount) {
        return amount == null ? "" : amount.toDollars().toPlainString();
    }
}
