package dev.tollgate.adapter.out.upstream.common;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Upstream adapter support: a JSON value as maps, lists, strings, exact numbers, booleans and nulls, read from and
 * written to Jackson's streaming parser and generator (no object mapper: the adapters read the few shapes they need
 * and copy the rest).
 */
public final class JsonValues {

    private JsonValues() {
    }

    /** The value at the parser's current token (read to its end); numbers exact, as written. */
    public static Object read(JsonParser parser) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == null) {
            throw new IOException("no JSON value");
        }
        return switch (token) {
            case START_OBJECT -> {
                Map<String, Object> map = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    map.put(name, read(parser));
                }
                yield map;
            }
            case START_ARRAY -> {
                List<Object> list = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    list.add(read(parser));
                }
                yield list;
            }
            case VALUE_STRING -> parser.getText();
            case VALUE_NUMBER_INT -> parser.getBigIntegerValue();
            case VALUE_NUMBER_FLOAT -> decimal(parser);
            case VALUE_TRUE -> true;
            case VALUE_FALSE -> false;
            case VALUE_NULL -> null;
            default -> throw new IOException("unexpected " + token);
        };
    }

    /**
     * The number at the parser's current token as an exact decimal. JSON numbers have no bounds, a decimal's exponent
     * does: one beyond it ({@code 1e99999999999}) is unreadable, an {@link IOException} like any other text that is
     * no value the gateway can pass on (Jackson throws a {@link NumberFormatException}, which escaped the readers).
     */
    public static BigDecimal decimal(JsonParser parser) throws IOException {
        try {
            return parser.getDecimalValue();
        } catch (NumberFormatException beyondAnyDecimal) {
            throw new JsonParseException(parser, "a number beyond any decimal's exponent", beyondAnyDecimal);
        }
    }

    /** Writes a value made of what {@link #read} makes. */
    public static void write(JsonGenerator generator, Object value) throws IOException {
        if (value instanceof Map<?, ?> map) {
            generator.writeStartObject();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                generator.writeFieldName(String.valueOf(entry.getKey()));
                write(generator, entry.getValue());
            }
            generator.writeEndObject();
        } else if (value instanceof List<?> list) {
            generator.writeStartArray();
            for (Object item : list) {
                write(generator, item);
            }
            generator.writeEndArray();
        } else if (value instanceof String text) {
            generator.writeString(text);
        } else if (value instanceof Boolean flag) {
            generator.writeBoolean(flag);
        } else if (value instanceof BigInteger integer) {
            generator.writeNumber(integer);
        } else if (value instanceof BigDecimal decimal) {
            generator.writeNumber(plainIfShort(decimal));
        } else {
            generator.writeNull();
        }
    }

    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    /**
     * A count a provider reported (tokens): the number rounded down, {@link Long#MAX_VALUE} for a larger one (an
     * absurd count is the provider's, not unreadable: the run caps what it bills), -1 for a negative one or none.
     * Its exponent is compared, never expanded: {@code 1e999999999} is a few bytes.
     */
    public static long count(Object value) {
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return Math.max(-1, ((Number) value).longValue());
        }
        BigDecimal number;
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return d == Double.POSITIVE_INFINITY ? Long.MAX_VALUE : -1;
            }
            number = BigDecimal.valueOf(d);
        } else if (value instanceof BigDecimal decimal) {
            number = decimal;
        } else if (value instanceof BigInteger integer) {
            number = new BigDecimal(integer);
        } else {
            return -1;
        }
        if (number.signum() < 0) {
            return -1;
        }
        if (number.compareTo(LONG_MAX) >= 0) {
            return Long.MAX_VALUE;
        }
        // Below one is nothing; from one on, the fraction is short (a long one would be that long as text).
        return number.compareTo(BigDecimal.ONE) < 0 ? 0 : number.longValue();
    }

    /**
     * A decimal as JSON text: plainly ({@code 100}, never {@code 1E+2}) unless that is long — a provider's
     * {@code 1e999999999} is a few bytes, its plain digits a gigabyte — then as JSON's exponent form.
     */
    static String plainIfShort(BigDecimal decimal) {
        long scale = decimal.scale();
        long plainDigits = scale <= 0 ? decimal.precision() - scale : Math.max(decimal.precision(), scale) + 1;
        return plainDigits <= 64 ? decimal.toPlainString() : decimal.toString();
    }
}
