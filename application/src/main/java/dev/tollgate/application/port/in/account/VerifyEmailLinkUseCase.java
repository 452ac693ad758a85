package dev.tollgate.application.port.in.account;

/** Use case: open an e-mail verification link; a valid one marks the account's e-mail verified (§1, §5.5). */
public interface VerifyEmailLinkUseCase {

    /** @return whether the link was valid (signed by this gateway, for the account's address, not expired) */
    boolean verify(String token);
}
