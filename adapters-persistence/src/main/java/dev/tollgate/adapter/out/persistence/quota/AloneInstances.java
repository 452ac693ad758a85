package dev.tollgate.adapter.out.persistence.quota;

/**
 * What the gateway instances tell each other about deciding traffic limits alone (the shared store unreachable
 * from them). An instance that decides alone keeps to its share of every limit; while one does, the others must
 * too, even though they reach the shared store — otherwise the shared store admits the whole limit on top of what
 * the lone instance admits, which it never sees (docs/operations.md, "While Redis is unreachable").
 */
public interface AloneInstances {

    /** One instance on its own: nobody else to tell or to hear from. */
    AloneInstances NONE = new AloneInstances() {
        @Override
        public boolean othersAlone() {
            return false;
        }

        @Override
        public void alone(boolean alone) {
        }
    };

    /** Whether another live instance decides alone, as last heard (asking costs nothing on the request path). */
    boolean othersAlone();

    /** Tells the other instances whether this one decides alone from now on (in the background). */
    void alone(boolean alone);
}
