package dev.tollgate.bootstrap;

import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.BeanDestroyedEvent;
import io.micronaut.context.event.BeanDestroyedEventListener;
import jakarta.inject.Singleton;
import javax.sql.DataSource;

/**
 * Stops the embedded PostgreSQL once the connection pool has been closed during shutdown, so requests still in
 * flight while the server stops can finish their database work first.
 */
@Singleton
@Requires(beans = Datastore.class)
final class EmbeddedDatastoreShutdown implements BeanDestroyedEventListener<DataSource> {

    private final Datastore datastore;

    EmbeddedDatastoreShutdown(Datastore datastore) {
        this.datastore = datastore;
    }

    @Override
    public void onDestroyed(BeanDestroyedEvent<DataSource> event) {
        datastore.close();
    }
}
