package dev.tollgate.domain.shared;

import java.util.Objects;

/**
 * How a partial update treats one field: leave it as it is (the field was absent), set it to a value,
 * or clear it (the field was {@code null}). PATCH semantics of §3 and §4.1.
 */
public sealed interface FieldChange<T> permits FieldChange.Keep, FieldChange.Set, FieldChange.Clear {

    @SuppressWarnings("unchecked")
    static <T> FieldChange<T> keep() {
        return (FieldChange<T>) Keep.INSTANCE;
    }

    static <T> FieldChange<T> set(T value) {
        return new Set<>(value);
    }

    @SuppressWarnings("unchecked")
    static <T> FieldChange<T> clear() {
        return (FieldChange<T>) Clear.INSTANCE;
    }

    default boolean isKeep() {
        return this instanceof Keep;
    }

    /** The field was absent. */
    final class Keep<T> implements FieldChange<T> {
        private static final Keep<Object> INSTANCE = new Keep<>();

        private Keep() {
        }

        @Override
        public String toString() {
            return "Keep";
        }
    }

    /** The field carried a value. */
    record Set<T>(T value) implements FieldChange<T> {
        public Set {
            Objects.requireNonNull(value, "use FieldChange.clear() for null");
        }
    }

    /** The field was explicitly {@code null}. */
    final class Clear<T> implements FieldChange<T> {
        private static final Clear<Object> INSTANCE = new Clear<>();

        private Clear() {
        }

        @Override
        public String toString() {
            return "Clear";
        }
    }
}
