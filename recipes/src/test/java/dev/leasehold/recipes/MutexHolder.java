package dev.leasehold.recipes;

import java.io.Closeable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** A FencedMutex used from a thread of its own: holds belong to threads, so acquire and release run there. */
final class MutexHolder implements Closeable {

    final FencedMutex mutex;
    private final ExecutorService thread;

    MutexHolder(FencedMutex mutex) {
        this.mutex = mutex;
        this.thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "holder-" + mutex.participantId()));
    }

    /** Starts an acquire on the holder's thread. */
    Future<FencingToken> acquire() {
        return thread.submit(() -> mutex.acquire());
    }

    Future<Optional<FencingToken>> acquire(Duration timeout) {
        return thread.submit(() -> mutex.acquire(timeout));
    }

    FencingToken acquired() throws Exception {
        return acquire().get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    void release() throws Exception {
        thread.submit(() -> {
                    mutex.release();
                    return null;
                })
                .get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Runs {@code call} on the holder's thread and returns its result. */
    <T> T onThread(java.util.concurrent.Callable<T> call) throws Exception {
        return thread.submit(call).get(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        thread.shutdownNow();
        mutex.close();
    }
}
