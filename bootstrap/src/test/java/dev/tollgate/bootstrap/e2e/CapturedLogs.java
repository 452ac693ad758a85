package dev.tollgate.bootstrap.e2e;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;

/** Test appender: keeps every log line of the test JVM so tests can prove no secret was ever logged. */
public final class CapturedLogs extends AppenderBase<ILoggingEvent> {

    private static final List<String> LINES = new ArrayList<>();

    @Override
    protected void append(ILoggingEvent event) {
        String line = event.getFormattedMessage();
        if (event.getThrowableProxy() != null) {
            line += "\n" + ThrowableProxyUtil.asString(event.getThrowableProxy());
        }
        synchronized (LINES) {
            LINES.add(line);
        }
    }

    public static List<String> lines() {
        synchronized (LINES) {
            return List.copyOf(LINES);
        }
    }
}
