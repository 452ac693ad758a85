package dev.tollgate.domain.quota;

/**
 * Who a traffic limit counts (§8): the scopes of the §8.1 table, the behavioural scope (key, source IP and model),
 * the §8.2 playground scopes, and the dashboard's sign-in and mail scopes. {@link #code()} names the scope in
 * headers, messages and store keys.
 */
public enum LimitScope {
    KEY("key", "this key"),
    KEY_IP("key_ip", "this key from this source IP"),
    ACCOUNT("account", "this account"),
    IP("ip", "this source IP"),
    KEY_IP_MODEL("key_ip_model", "this key, source IP and model"),
    PRINCIPAL("principal", "this playground user"),
    PLAYGROUND_IP("playground_ip", "this source IP on the playground"),
    PLAYGROUND("playground", "the public playground"),
    LOGIN_EMAIL("login_email", "sign-ins to this e-mail address"),
    LOGIN_IP("login_ip", "sign-ins from this source IP"),
    MAIL_RECIPIENT("mail_recipient", "mail to this e-mail address"),
    MAIL_IP("mail_ip", "mail requested from this source IP");

    private final String code;
    private final String description;

    LimitScope(String code, String description) {
        this.code = code;
        this.description = description;
    }

    public String code() {
        return code;
    }

    /** Words for a person, e.g. "this key from this source IP". */
    public String description() {
        return description;
    }
}
