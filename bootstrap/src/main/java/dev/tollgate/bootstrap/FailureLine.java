package dev.tollgate.bootstrap;

import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.sql.SQLException;
import java.util.regex.Pattern;

/**
 * A start-up or CLI failure as one line an operator can act on, with no secret in it. The line is what went wrong
 * at the bottom of the failure — the database driver's own sentence when the database is at fault ("Connection to
 * 127.0.0.1:5433 refused…", "database "x" does not exist"), else the innermost cause, which names the setting —
 * followed by where it surfaced when that says more. A password typed into a JDBC URL ({@code ?password=…},
 * {@code user:password@host}) is masked wherever the line repeats it.
 */
public final class FailureLine {

    private static final Pattern USER_INFO = Pattern.compile("([^\\s/:@()]+):[^\\s/@()]+@");
    private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)(password=)[^&\\s)]+");

    private FailureLine() {
    }

    public static String of(Throwable failure) {
        Throwable root = failure;
        SQLException database = null;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            root = t;
            if (database == null && t instanceof SQLException sql) {
                database = sql;
            }
        }
        Throwable bottom = database != null ? database : root;
        String cause = firstLine(bottom);
        String surfaced = firstLine(failure);
        // Where the framework met it ("Bean definition [...] could not be loaded: ...") names a class of ours, not
        // the setting: it says nothing more to an operator (an audit, 2026-11-29).
        boolean sayMore = bottom != failure && !cause.contains(surfaced) && !surfaced.startsWith("Bean definition [")
                && !surfaced.startsWith("Error instantiating bean");
        return mask(sayMore ? cause + " (" + surfaced + ")" : cause);
    }

    /** The text with the passwords of JDBC URLs in it replaced by {@code <masked>}. */
    public static String mask(String text) {
        String masked = USER_INFO.matcher(text).replaceAll("$1:<masked>@");
        return PASSWORD_PARAMETER.matcher(masked).replaceAll("$1<masked>");
    }

    private static String firstLine(Throwable t) {
        String message = t.getMessage() == null || t.getMessage().isBlank() ? t.getClass().getSimpleName()
                : t.getMessage().strip();
        // The JDK's file errors carry only the path: what happened to it is in the exception's type (an audit:
        // "Cannot open the datastore: /srv/tollgate/data" for a directory the gateway may not write to).
        if (t instanceof AccessDeniedException) {
            message = "permission denied: " + message + " (the gateway's user must be able to read and write it)";
        } else if (t instanceof NoSuchFileException) {
            message = "no such file or directory: " + message;
        }
        int line = message.indexOf('\n');
        return line < 0 ? message : message.substring(0, line).strip();
    }
}
