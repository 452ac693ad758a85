package dev.tollgate.application.port.in.session;

import dev.tollgate.domain.session.DashboardSession;
import java.util.Optional;

/** Use case: which signed-in session a browser's cookie belongs to, if it is still live. */
public interface ResolveSessionUseCase {

    /** The live session of this cookie value; empty for a missing, unknown, idle or expired one. */
    Optional<DashboardSession> resolve(String sessionToken);
}
