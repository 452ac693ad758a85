package dev.tollgate.adapter.out.upstream.catalog;

import dev.tollgate.domain.catalog.CatalogModel;
import dev.tollgate.domain.catalog.ModelCapabilities;
import dev.tollgate.domain.catalog.ModelId;
import dev.tollgate.domain.catalog.ProviderId;
import dev.tollgate.domain.catalog.ProviderRoute;
import dev.tollgate.domain.catalog.TokenPrice;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The YAML catalog (docs/catalog.md): {@code providers} by name with their type and settings, and {@code models}
 * with limits and routes in fallback order. Prices are decimal strings or numbers of USD per million tokens,
 * read as exact decimals.
 */
public record CatalogFile(Map<String, ProviderSettings> providers, List<CatalogModel> models) {

    private static final List<String> CAPABILITIES = List.of("tools", "response-format", "logprobs", "seed", "images");

    /** A provider's type ({@code simulator}, {@code openai}, {@code anthropic}) and its other settings. */
    /**
     * A provider's settings as the catalog gives them. A provider reads the ones its type knows when it is built;
     * {@link #requireAllRead()} then refuses any other (a misspelt {@code requests-per-minut} would otherwise be
     * silently ignored).
     */
    public record ProviderSettings(String name, String type, Map<String, Object> settings, Set<String> read) {

        public ProviderSettings(String name, String type, Map<String, Object> settings) {
            this(name, type, settings, java.util.concurrent.ConcurrentHashMap.newKeySet());
        }

        private Object get(String key) {
            read.add(key);
            return settings.get(key);
        }

        public String string(String key, String fallback) {
            Object value = get(key);
            return value == null ? fallback : value.toString();
        }

        /** One of {@code allowed} (the first is the default when absent); anything else is refused. */
        public String choice(String key, String... allowed) {
            String value = string(key, allowed[0]);
            for (String option : allowed) {
                if (option.equals(value)) {
                    return option;
                }
            }
            throw new IllegalArgumentException("provider " + name + ": " + key + " must be one of "
                    + String.join(", ", allowed) + ", got '" + value + "'");
        }

        public long number(String key, long fallback) {
            Object value = get(key);
            if (value == null) {
                return fallback;
            }
            try {
                return new BigDecimal(value.toString()).longValueExact();
            } catch (ArithmeticException | NumberFormatException e) {
                throw new IllegalArgumentException("provider " + name + ": " + key + " must be a whole number, got "
                        + value);
            }
        }

        public boolean bool(String key, boolean fallback) {
            Object value = get(key);
            return value == null ? fallback : strictBoolean(value, "provider " + name + ": " + key);
        }

        /** A whole number of at least {@code min}. */
        public long number(String key, long fallback, long min) {
            long value = number(key, fallback);
            if (value < min) {
                throw new IllegalArgumentException("provider " + name + ": " + key + " must be at least " + min
                        + ", got " + value);
            }
            return value;
        }

        /**
         * Refuses a setting nobody read: called once the provider is built, when every setting its type knows has
         * been looked up (the error lists them).
         */
        public void requireAllRead() {
            for (String key : settings.keySet()) {
                if (!read.contains(key)) {
                    throw new IllegalArgumentException("provider " + name + ": unknown setting '" + key + "' for type "
                            + type + " (known: type, " + String.join(", ", new java.util.TreeSet<>(read)) + ")");
                }
            }
        }
    }

    public static CatalogFile parse(String yaml) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false); // a key written twice is an error, not its last value (the file is strict)
        Object root = new Yaml(new SafeConstructor(options)).load(yaml);
        Map<String, Object> top = map(root, "the catalog");
        known(top, TOP_KEYS, "the catalog");
        Map<String, ProviderSettings> providers = new LinkedHashMap<>();
        map(top.getOrDefault("providers", Map.of()), "providers").forEach((name, value) -> {
            Map<String, Object> settings = new LinkedHashMap<>(map(value, "provider " + name));
            Object type = settings.remove("type");
            if (type == null) {
                throw new IllegalArgumentException("provider " + name + " has no type");
            }
            if (settings.containsKey("api-key")) {
                // A secret in a file that is read, copied and checked in: the catalog names the variable instead.
                throw new IllegalArgumentException("provider " + name + ": api-key is not read from the catalog; put "
                        + "the key in an environment variable and name it with api-key-env");
            }
            providers.put(name, new ProviderSettings(name, type.toString(), settings));
        });
        List<CatalogModel> models = new ArrayList<>();
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (Object entry : list(top.getOrDefault("models", List.of()), "models")) {
            CatalogModel model = model(map(entry, "a model"), providers);
            if (!ids.add(model.id().value())) {
                // Both would be listed, one of them never served.
                throw new IllegalArgumentException("model " + model.id().value() + " is in the catalog twice");
            }
            models.add(model);
        }
        return new CatalogFile(providers, models);
    }

    private static CatalogModel model(Map<String, Object> m, Map<String, ProviderSettings> providers) {
        String id = required(m, "id", "a model");
        String where = "model " + id;
        known(m, MODEL_KEYS, where);
        List<ProviderRoute> routes = new ArrayList<>();
        for (Object entry : list(m.get("routes"), where + " routes")) {
            Map<String, Object> r = map(entry, where + " route");
            known(r, ROUTE_KEYS, where + " route");
            String provider = required(r, "provider", where + " route");
            if (!providers.containsKey(provider)) {
                throw new IllegalArgumentException(where + ": unknown provider '" + provider + "'");
            }
            Map<String, Object> caps = map(r.getOrDefault("capabilities", Map.of()), where + " capabilities");
            for (String key : caps.keySet()) {
                if (!CAPABILITIES.contains(key)) {
                    throw new IllegalArgumentException(where + ": unknown capability '" + key + "' (known: "
                            + String.join(", ", CAPABILITIES) + ")");
                }
            }
            String capabilitiesOf = where + " route to '" + provider + "' capabilities";
            if (flag(caps, "logprobs", capabilitiesOf) && "anthropic".equals(providers.get(provider).type())) {
                // The Messages API has no log probabilities: a client asking for them would get none.
                throw new IllegalArgumentException(where + ": provider '" + provider + "' (anthropic) has no log "
                        + "probabilities; remove logprobs from its capabilities");
            }
            if (flag(caps, "response-format", capabilitiesOf) && "anthropic".equals(providers.get(provider).type())) {
                // Not translated to the Messages API: a client asking for JSON would get free text.
                throw new IllegalArgumentException(where + ": provider '" + provider + "' (anthropic) is not sent "
                        + "response_format; remove response-format from its capabilities");
            }
            routes.add(new ProviderRoute(new ProviderId(provider), r.getOrDefault("model", id).toString(),
                    price(r, "input-usd-per-million", where), price(r, "output-usd-per-million", where),
                    new ModelCapabilities(flag(caps, "tools", capabilitiesOf), flag(caps, "response-format",
                            capabilitiesOf), flag(caps, "logprobs", capabilitiesOf), flag(caps, "seed", capabilitiesOf),
                            flag(caps, "images", capabilitiesOf))));
        }
        required(m, "context-length", where);
        required(m, "max-output-tokens", where);
        return new CatalogModel(new ModelId(id), m.getOrDefault("owned-by", "tollgate").toString(),
                whole(m, "created", 1767225600L, Long.MAX_VALUE, where),
                (int) whole(m, "context-length", 0, Integer.MAX_VALUE, where),
                (int) whole(m, "max-output-tokens", 0, Integer.MAX_VALUE, where), routes,
                (int) whole(m, "image-tokens", 0, Integer.MAX_VALUE, where));
    }

    private static final java.util.Set<String> TOP_KEYS = java.util.Set.of("providers", "models");
    private static final java.util.Set<String> MODEL_KEYS = java.util.Set.of("id", "owned-by", "created",
            "context-length", "max-output-tokens", "image-tokens", "routes");
    private static final java.util.Set<String> ROUTE_KEYS = java.util.Set.of("provider", "model",
            "input-usd-per-million", "output-usd-per-million", "capabilities");

    /** A misspelt key would be silently left out (a model's cap, a route's prices): it is an error instead. */
    private static void known(Map<String, Object> section, java.util.Set<String> keys, String where) {
        for (String key : section.keySet()) {
            if (!keys.contains(key)) {
                throw new IllegalArgumentException(where + ": unknown key '" + key + "' (known: "
                        + String.join(", ", new java.util.TreeSet<>(keys)) + ")");
            }
        }
    }

    /** A whole number of at most {@code most}, or {@code fallback} when absent; an error names the field. */
    private static long whole(Map<String, Object> m, String key, long fallback, long most, String where) {
        Object value = m.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            long number = Long.parseLong(value.toString().strip());
            if (number <= most) {
                return number;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(where + ": " + key + " must be a whole number of at most " + most
                + ", got '" + value + "'");
    }

    private static TokenPrice price(Map<String, Object> route, String key, String where) {
        Object value = route.get(key);
        if (value == null) {
            throw new IllegalArgumentException(where + ": route needs " + key + " (0 for free)");
        }
        BigDecimal usd;
        try {
            usd = new BigDecimal(value.toString());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": " + key + " must be a decimal number of USD, got '" + value
                    + "'");
        }
        if (usd.stripTrailingZeros().scale() > 6) {
            // Stored in micro-dollars per million tokens: a finer price would be rounded, perhaps to free.
            throw new IllegalArgumentException(where + ": " + key + " has more decimals than a micro-dollar (6), got "
                    + value);
        }
        try {
            return TokenPrice.usdPerMillion(usd);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + key + ": " + e.getMessage());
        }
    }

    private static boolean flag(Map<String, Object> caps, String key, String where) {
        Object value = caps.get(key);
        return value != null && strictBoolean(value, where + ": " + key);
    }

    /** {@code true} or {@code false}: a typo ({@code ture}, {@code yes}) is refused, never read as false. */
    static boolean strictBoolean(Object value, String what) {
        if (value instanceof Boolean b) {
            return b;
        }
        throw new IllegalArgumentException(what + " must be true or false, got '" + value + "'");
    }

    private static String required(Map<String, Object> m, String key, String where) {
        Object value = m.get(key);
        if (value == null || value.toString().isBlank()) {
            throw new IllegalArgumentException(where + " needs '" + key + "'");
        }
        return value.toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value, String what) {
        if (value instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw new IllegalArgumentException(what + " must be a mapping");
    }

    private static List<Object> list(Object value, String what) {
        if (value instanceof List<?> l) {
            return new ArrayList<>(l);
        }
        throw new IllegalArgumentException(what + " must be a list");
    }
}
