package dev.tollgate.adapter.out.persistence.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The embedded PostgreSQL's superuser password, kept in a file only its owner may read: made once (32 random bytes
 * as 43 characters of base64url) by whichever process comes first, read by every process after it.
 */
final class PasswordFile {

    private static final SecureRandom RANDOM = new SecureRandom();

    private PasswordFile() {
    }

    static String readOrCreate(Path file) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            if (Files.exists(file)) {
                String password = Files.readString(file, StandardCharsets.US_ASCII).strip();
                if (password.matches("[A-Za-z0-9_-]{43}")) {
                    return password;
                }
                if (!password.isEmpty()) {
                    throw new IOException(file + " does not hold a password this gateway made (43 characters of "
                            + "base64url); restore it, or remove it together with the data directory's postgres/");
                }
                sleep(); // another process created it a moment ago and is writing it
                continue;
            }
            byte[] bytes = new byte[32];
            RANDOM.nextBytes(bytes);
            String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            Path partial = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
            try {
                Files.deleteIfExists(partial);
                Files.createFile(partial, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(partial); // not a POSIX file system: its own access rules apply
            }
            Files.writeString(partial, password + "\n", StandardCharsets.US_ASCII);
            try {
                // Not a move that replaces: a process that made its file first wins, and every process uses that one.
                Files.createLink(file, partial);
            } catch (FileAlreadyExistsException e) {
                // another process won: read its password on the next turn
            } catch (UnsupportedOperationException | IOException e) {
                if (!Files.exists(file)) {
                    Files.move(partial, file); // no hard links here: an atomic rename, best effort
                }
            } finally {
                Files.deleteIfExists(partial);
            }
        }
        throw new IOException("could not read or create " + file);
    }

    private static void sleep() throws IOException {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the embedded PostgreSQL's password", e);
        }
    }
}
