package dev.tollgate.application.port.in.account;

import dev.tollgate.domain.account.Email;

/**
 * Use case: the operator confirms an account's e-mail address (CLI {@code admin account verify}). Unlike the
 * mailed link, the operator cannot know who chose a password waiting for confirmation: a dashboard sign-up that
 * waits for its link is refused, or discarded when asked (its password and sessions end).
 */
public interface ConfirmEmailByOperatorUseCase {

    /** @throws SignUpPendingException when a sign-up waits for its link and {@code discardSignUp} is false */
    void confirm(Email email, boolean discardSignUp);
}
