package dev.tollgate.domain.quota;

import java.util.Objects;

/**
 * One counter of a traffic limit: a scope, the subject it counts (a key id, an account id, a source IP, a
 * combination of them) and the rule's name, so that the minute and the 10-second window of one key are two
 * buckets. {@link #key()} is the store's name for it, made once (every decision looks it up several times).
 */
public record Bucket(LimitScope scope, String subject, String rule, String key) {

    public Bucket {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(rule, "rule");
        if (subject.isEmpty() || rule.isEmpty()) {
            throw new IllegalArgumentException("a bucket needs a subject and a rule");
        }
        if (!name(scope, subject, rule).equals(key)) {
            throw new IllegalArgumentException("a bucket's key is made of its scope, rule and subject");
        }
    }

    public Bucket(LimitScope scope, String subject, String rule) {
        this(scope, subject, rule, name(scope, Objects.requireNonNull(subject, "subject"),
                Objects.requireNonNull(rule, "rule")));
    }

    private static String name(LimitScope scope, String subject, String rule) {
        return scope.code() + ':' + rule + ':' + subject;
    }

    /** The same scope and subject under another rule (e.g. the cooldown state of a request bucket). */
    public Bucket withRule(String otherRule) {
        return new Bucket(scope, subject, otherRule);
    }
}
