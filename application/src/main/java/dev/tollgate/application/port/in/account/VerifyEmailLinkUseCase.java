package dev.tollgate.application.port.in.account;

/**
 * Use case: open an e-mail verification link; a valid one, with the account's password, marks the account's e-mail
 * verified (§1, §5.5). The password proves that whoever reads the mailbox also chose the password: a link mailed
 * after someone else signed up with the address (to take the account over once its owner confirms) verifies
 * nothing without that someone's password.
 */
public interface VerifyEmailLinkUseCase {

    /**
     * Counted as a sign-in attempt (per address and per {@code sourceIp}) before the password is checked: a link
     * must not be a way around the sign-in limits to guess passwords or to make the gateway hash without end.
     *
     * @return whether the link was valid (signed by this gateway, for the account's address, not expired) and
     *         {@code password} is the account's
     * @throws dev.tollgate.application.port.in.traffic.RateLimitExceededException when the attempts are spent
     */
    boolean verify(String token, String password, String sourceIp);
}
