package dev.tollgate.adapter.out.upstream.simulator;

import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Test fixture: checks a JSON instance against the subset of JSON Schema the simulator promises to honour, written
 * apart from {@link JsonAnswer} (and reading JSON with Micronaut's mapper, not its parser) so that the two do not
 * share a mistake. Answers the violations found, each with its JSON path; none means valid.
 */
final class SchemaSubsetValidator {

    private static final JsonMapper JSON = JsonMapper.createDefault();
    private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private final Object root;
    private final List<String> violations = new ArrayList<>();

    private SchemaSubsetValidator(Object root) {
        this.root = root;
    }

    static Object parse(String json) throws IOException {
        return JSON.readValue(json, Argument.OBJECT_ARGUMENT);
    }

    /** The violations of {@code instanceJson} against {@code schemaJson}. */
    static List<String> violations(String schemaJson, String instanceJson) throws IOException {
        Object schema = parse(schemaJson);
        SchemaSubsetValidator validator = new SchemaSubsetValidator(schema);
        validator.check(schema, parse(instanceJson), "$");
        return validator.violations;
    }

    private boolean matches(Object schema, Object value) {
        SchemaSubsetValidator branch = new SchemaSubsetValidator(root);
        branch.check(schema, value, "");
        return branch.violations.isEmpty();
    }

    private void check(Object schema, Object value, String path) {
        if (Boolean.FALSE.equals(schema)) {
            violations.add(path + ": the false schema admits nothing");
            return;
        }
        if (!(schema instanceof Map<?, ?> s)) {
            return;
        }
        if (s.get("$ref") instanceof String ref) {
            check(resolve(ref), value, path);
            return;
        }
        if (s.containsKey("const") && !same(s.get("const"), value)) {
            violations.add(path + ": not the const " + s.get("const"));
        }
        if (s.get("enum") instanceof List<?> options && options.stream().noneMatch(o -> same(o, value))) {
            violations.add(path + ": not one of " + options);
        }
        if (s.get("type") != null) {
            List<?> types = s.get("type") instanceof List<?> list ? list : List.of(s.get("type"));
            String actual = typeOf(value);
            if (!types.contains(actual) && !("integer".equals(actual) && types.contains("number"))) {
                violations.add(path + ": a " + actual + ", not " + types);
            }
        }
        if (s.get("anyOf") instanceof List<?> branches && branches.stream().noneMatch(b -> matches(b, value))) {
            violations.add(path + ": matches no branch of anyOf");
        }
        if (s.get("oneOf") instanceof List<?> branches
                && branches.stream().filter(b -> matches(b, value)).count() != 1) {
            violations.add(path + ": does not match exactly one branch of oneOf");
        }
        if (s.get("allOf") instanceof List<?> parts) {
            parts.forEach(part -> check(part, value, path));
        }
        if (value instanceof Map<?, ?> object) {
            checkObject(s, object, path);
        } else if (value instanceof List<?> array) {
            checkArray(s, array, path);
        } else if (value instanceof String text) {
            checkString(s, text, path);
        } else if (value instanceof Number number) {
            checkNumber(s, new BigDecimal(number.toString()), path);
        }
    }

    private void checkObject(Map<?, ?> s, Map<?, ?> object, String path) {
        Map<?, ?> properties = s.get("properties") instanceof Map<?, ?> p ? p : Map.of();
        if (s.get("required") instanceof List<?> required) {
            required.stream().filter(name -> !object.containsKey(name))
                    .forEach(name -> violations.add(path + ": lacks the required " + name));
        }
        for (Map.Entry<?, ?> entry : object.entrySet()) {
            String at = path + "." + entry.getKey();
            if (properties.containsKey(entry.getKey())) {
                check(properties.get(entry.getKey()), entry.getValue(), at);
            } else if (Boolean.FALSE.equals(s.get("additionalProperties"))) {
                violations.add(at + ": not a declared property");
            } else if (s.get("additionalProperties") instanceof Map<?, ?> extra) {
                check(extra, entry.getValue(), at);
            }
        }
    }

    private void checkArray(Map<?, ?> s, List<?> array, String path) {
        if (s.get("minItems") instanceof Number min && array.size() < min.intValue()) {
            violations.add(path + ": fewer than " + min + " items");
        }
        if (s.get("maxItems") instanceof Number max && array.size() > max.intValue()) {
            violations.add(path + ": more than " + max + " items");
        }
        List<?> prefix = s.get("prefixItems") instanceof List<?> p ? p : List.of();
        for (int i = 0; i < array.size(); i++) {
            Object items = i < prefix.size() ? prefix.get(i) : s.get("items");
            check(items, array.get(i), path + "[" + i + "]");
        }
    }

    private void checkString(Map<?, ?> s, String text, String path) {
        int length = text.codePointCount(0, text.length());
        if (s.get("minLength") instanceof Number min && length < min.longValue()) {
            violations.add(path + ": shorter than " + min);
        }
        if (s.get("maxLength") instanceof Number max && length > max.longValue()) {
            violations.add(path + ": longer than " + max);
        }
        if (s.get("format") instanceof String format && !formatted(format, text)) {
            violations.add(path + ": '" + text + "' is no " + format);
        }
    }

    private static boolean formatted(String format, String text) {
        try {
            return switch (format) {
                case "date-time" -> OffsetDateTime.parse(text) != null;
                case "date" -> LocalDate.parse(text) != null;
                case "email" -> EMAIL.matcher(text).matches();
                case "uuid" -> UUID_TEXT.matcher(text).matches() && UUID.fromString(text) != null;
                default -> true;
            };
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void checkNumber(Map<?, ?> s, BigDecimal number, String path) {
        BigDecimal minimum = decimal(s.get("minimum"));
        BigDecimal maximum = decimal(s.get("maximum"));
        if (minimum != null) {
            int side = number.compareTo(minimum);
            if (side < 0 || (side == 0 && Boolean.TRUE.equals(s.get("exclusiveMinimum")))) {
                violations.add(path + ": " + number + " below the minimum " + minimum);
            }
        }
        if (maximum != null) {
            int side = number.compareTo(maximum);
            if (side > 0 || (side == 0 && Boolean.TRUE.equals(s.get("exclusiveMaximum")))) {
                violations.add(path + ": " + number + " above the maximum " + maximum);
            }
        }
        BigDecimal above = decimal(s.get("exclusiveMinimum"));
        if (above != null && number.compareTo(above) <= 0) {
            violations.add(path + ": " + number + " not above " + above);
        }
        BigDecimal below = decimal(s.get("exclusiveMaximum"));
        if (below != null && number.compareTo(below) >= 0) {
            violations.add(path + ": " + number + " not below " + below);
        }
        BigDecimal step = decimal(s.get("multipleOf"));
        if (step != null && step.signum() > 0 && number.remainder(step).signum() != 0) {
            violations.add(path + ": " + number + " is no multiple of " + step);
        }
    }

    private Object resolve(String pointer) {
        Object at = root;
        for (String token : pointer.substring(1).split("/")) {
            if (!token.isEmpty()) {
                at = ((Map<?, ?>) at).get(token);
            }
        }
        return Objects.requireNonNull(at, pointer);
    }

    private static String typeOf(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Number number) {
            BigDecimal decimal = new BigDecimal(number.toString());
            return decimal.signum() == 0 || decimal.stripTrailingZeros().scale() <= 0 ? "integer" : "number";
        }
        return value instanceof Boolean ? "boolean" : value instanceof String ? "string"
                : value instanceof Map<?, ?> ? "object" : value instanceof List<?> ? "array" : "unknown";
    }

    private static boolean same(Object expected, Object value) {
        if (expected instanceof Number a && value instanceof Number b) {
            return new BigDecimal(a.toString()).compareTo(new BigDecimal(b.toString())) == 0;
        }
        return Objects.equals(expected, value);
    }

    private static BigDecimal decimal(Object value) {
        return value instanceof Number number ? new BigDecimal(number.toString()) : null;
    }
}
