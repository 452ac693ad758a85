package dev.tollgate.application.port.in.usage;

import dev.tollgate.application.port.out.UsageQueries.Activity;
import java.util.List;

/** Query result: one page of an account's recent requests, newest first, and whether older ones follow. */
public record ActivityPage(List<Activity> entries, int offset, boolean more) {

    public ActivityPage {
        entries = List.copyOf(entries);
    }
}
