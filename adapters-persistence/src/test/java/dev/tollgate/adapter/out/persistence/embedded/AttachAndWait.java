package dev.tollgate.adapter.out.persistence.embedded;

import java.nio.file.Path;

/**
 * Another process on the same data directory, for {@link EmbeddedPostgresDatastoreTest}: attaches (as a gateway
 * whose connection pool has not opened yet), says so on stdout, and closes when its stdin ends.
 */
public final class AttachAndWait {

    private AttachAndWait() {
    }

    public static void main(String[] args) throws Exception {
        try (EmbeddedPostgresDatastore attached = EmbeddedPostgresDatastore.attachOrStart(Path.of(args[0]), false)) {
            System.out.println(attached.startedHere() ? "started" : "attached");
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the test to let go
            }
        }
    }
}
