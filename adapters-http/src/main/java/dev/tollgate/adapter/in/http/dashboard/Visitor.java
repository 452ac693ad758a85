package dev.tollgate.adapter.in.http.dashboard;

import dev.tollgate.domain.account.Account;
import dev.tollgate.domain.session.DashboardSession;

/** A signed-in dashboard visitor: the live session and its account as read at the start of the request. */
record Visitor(DashboardSession session, Account account) {
}
