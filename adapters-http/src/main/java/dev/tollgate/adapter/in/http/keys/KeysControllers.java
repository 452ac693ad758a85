package dev.tollgate.adapter.in.http.keys;

/** Path shared by the control-plane controllers. */
final class KeysControllers {

    static final String BASE = "/api/v1/keys";

    private KeysControllers() {
    }
}
