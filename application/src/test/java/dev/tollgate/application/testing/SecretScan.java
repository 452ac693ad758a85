package dev.tollgate.application.testing;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Test fixture: walks everything reachable from an object (our own types field by field, collections and maps
 * element by element) and reports where a secret's text turns up. Proves that stores keep only hashes.
 */
public final class SecretScan {

    private final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<String> findings = new ArrayList<>();
    private final List<String> needles;
    private int visited;

    private SecretScan(List<String> needles) {
        this.needles = needles;
    }

    /** The paths at which any of {@code needles} occurs, empty when none does. */
    public static List<String> find(Object root, String... needles) {
        SecretScan scan = new SecretScan(List.of(needles));
        scan.visit(root, root.getClass().getSimpleName());
        if (scan.visited < 2) {
            throw new IllegalStateException("nothing was scanned below " + root);
        }
        return scan.findings;
    }

    private void visit(Object value, String path) {
        if (value == null || !seen.add(value)) {
            return;
        }
        visited++;
        if (value instanceof Collection<?> collection) {
            int i = 0;
            for (Object element : List.copyOf(collection)) {
                visit(element, path + "[" + i++ + "]");
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : Map.copyOf(map).entrySet()) {
                visit(entry.getKey(), path + ".key");
                visit(entry.getValue(), path + "[" + entry.getKey() + "]");
            }
            return;
        }
        if (value instanceof Object[] array) {
            for (int i = 0; i < array.length; i++) {
                visit(array[i], path + "[" + i + "]");
            }
            return;
        }
        if (value instanceof byte[] bytes) {
            check(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1), path);
            return;
        }
        if (value.getClass().getName().startsWith("dev.tollgate.")) {
            check(String.valueOf(value), path + ".toString()");
            for (Class<?> type = value.getClass(); type != null && type.getName().startsWith("dev.tollgate.");
                    type = type.getSuperclass()) {
                for (Field field : type.getDeclaredFields()) {
                    if (Modifier.isStatic(field.getModifiers())) {
                        continue;
                    }
                    field.setAccessible(true);
                    try {
                        visit(field.get(value), path + "." + field.getName());
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            return;
        }
        // JDK value types (String, Instant, UUID, Boolean, Long, Optional ...): their text is what would be stored.
        check(String.valueOf(value), path);
        if (value instanceof java.util.Optional<?> optional) {
            optional.ifPresent(inner -> visit(inner, path + ".get()"));
        }
    }

    private void check(String text, String path) {
        for (String needle : needles) {
            if (text.contains(needle)) {
                findings.add(path + " contains a secret");
            }
        }
    }
}
