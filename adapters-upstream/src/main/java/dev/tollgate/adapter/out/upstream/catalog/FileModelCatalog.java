package dev.tollgate.adapter.out.upstream.catalog;

import dev.tollgate.application.port.out.ModelCatalog;
import dev.tollgate.domain.catalog.CatalogModel;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream adapter: {@link ModelCatalog} from a YAML file ({@code TOLLGATE_CATALOG}), re-read when the file
 * changes (looked at once per check interval), or from the catalog shipped in the jar. A file that cannot be read or
 * parsed makes the catalog unavailable to every model route (503) until it is fixed — the last good models are not
 * served stale, and the reason goes to the log, not to clients.
 */
public final class FileModelCatalog implements ModelCatalog {

    private static final Logger LOG = LoggerFactory.getLogger(FileModelCatalog.class);

    public static final String SHIPPED = "/catalog/default-catalog.yml";

    private final Path file;
    private final long checkIntervalNanos;
    private FileTime loadedVersion;
    private List<CatalogModel> models;
    /** Why the last look at the file failed, or {@code null}: repeated until the next look. */
    private CatalogReadException failure;
    private long checkedAtNanos;
    private final Consumer<CatalogFile> providerCheck;
    /** The providers section as first read, and the changed one last warned about. */
    private String startupProviders;
    private String warnedProviders;

    /**
     * @param file          the catalog file, or {@code null} for the shipped catalog
     * @param checkInterval how often a request may look at the file's modification time (not on every request)
     */
    public FileModelCatalog(Path file, java.time.Duration checkInterval) {
        this(file, checkInterval, catalog -> { });
    }

    /**
     * @param providerCheck checks a re-read file's providers as the start-up does (it throws what is wrong): the
     *                      providers are built at start-up only, but a file the next start-up would refuse is refused
     *                      now too, rather than found at a restart
     */
    public FileModelCatalog(Path file, java.time.Duration checkInterval, Consumer<CatalogFile> providerCheck) {
        this.file = file;
        this.checkIntervalNanos = checkInterval.toNanos();
        this.providerCheck = providerCheck;
    }

    /** Reads the catalog definition once (for the providers, which are built at start-up). */
    public static CatalogFile load(Path file) {
        try {
            return CatalogFile.parse(read(file));
        } catch (NoSuchFileException e) {
            throw new CatalogReadException("cannot read the catalog " + describe(file) + ": no such file", null);
        } catch (org.yaml.snakeyaml.error.MarkedYAMLException e) {
            // One line that says what and where (SnakeYAML's own message spans lines and starts with the context).
            org.yaml.snakeyaml.error.Mark at = e.getProblemMark();
            throw new CatalogReadException("cannot read the catalog " + describe(file) + ": " + e.getProblem()
                    + (e.getContext() == null ? "" : " " + e.getContext())
                    + (at == null ? "" : " at line " + (at.getLine() + 1) + ", column " + (at.getColumn() + 1)), null);
        } catch (IOException | RuntimeException e) {
            throw new CatalogReadException("cannot read the catalog " + describe(file) + ": " + e.getMessage(), null);
        }
    }

    private static String read(Path file) throws IOException {
        if (file != null) {
            try {
                return Files.readString(file, StandardCharsets.UTF_8);
            } catch (CharacterCodingException e) {
                throw new IOException("the file is not UTF-8 text", e);
            }
        }
        try (InputStream in = FileModelCatalog.class.getResourceAsStream(SHIPPED)) {
            if (in == null) {
                throw new IOException("the shipped catalog " + SHIPPED + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String describe(Path file) {
        return file == null ? "(shipped default)" : file.toString();
    }

    @Override
    public synchronized List<CatalogModel> models() {
        long now = System.nanoTime();
        if (file == null ? models != null
                : (models != null || failure != null) && now - checkedAtNanos < checkIntervalNanos) {
            if (failure != null) {
                throw failure; // every route sees the same catalog until the next look at the file
            }
            return models;
        }
        checkedAtNanos = now;
        try {
            FileTime version = null;
            if (file != null) {
                try {
                    version = Files.getLastModifiedTime(file);
                } catch (NoSuchFileException e) { // its message is the path alone (an audit)
                    throw new CatalogReadException("cannot read the catalog " + file + ": no such file", e);
                } catch (AccessDeniedException e) {
                    throw new CatalogReadException("cannot read the catalog " + file + ": permission denied", e);
                } catch (IOException e) {
                    throw new CatalogReadException("cannot read the catalog " + file + ": " + e.getMessage(), e);
                }
            }
            if (models == null || failure != null || (version != null && !version.equals(loadedVersion))) {
                CatalogFile loaded = load(file);
                if (startupProviders != null) { // the first read is the start-up's: its providers are built then
                    try {
                        providerCheck.accept(loaded);
                    } catch (RuntimeException e) {
                        throw new CatalogReadException("cannot read the catalog " + describe(file) + ": "
                                + e.getMessage(), null);
                    }
                }
                String providers = loaded.providers().values().stream()
                        .map(p -> p.name() + ":" + p.type() + p.settings()).toList().toString();
                if (startupProviders == null) {
                    startupProviders = providers;
                } else if (!providers.equals(startupProviders) && !providers.equals(warnedProviders)) {
                    warnedProviders = providers;
                    LOG.warn("The model catalog {}: its providers section changed; providers are built at start-up, so "
                            + "that takes effect at the next restart (models, prices and routes apply now)",
                            describe(file));
                }
                models = loaded.models();
                loadedVersion = version;
                if (failure != null) {
                    LOG.info("The model catalog {} is readable again", describe(file));
                }
                failure = null;
            }
            return models;
        } catch (CatalogReadException e) {
            if (failure == null || !failure.getMessage().equals(e.getMessage())) {
                LOG.error("The model catalog is unavailable until it is fixed ({}); model routes answer 503",
                        e.getMessage());
            }
            failure = e;
            throw e;
        }
    }
}
