package dev.leasehold.recipes;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Records what a FencedLossListener is told, and on which thread, for tests to wait on. */
final class LossRecorder implements FencedLossListener {

    record Loss(FencingToken token, LossCause cause, String thread) {}

    private final BlockingQueue<Loss> losses = new LinkedBlockingQueue<>();

    @Override
    public void lost(FencingToken token, LossCause cause) {
        losses.add(new Loss(token, cause, Thread.currentThread().getName()));
    }

    Loss next() throws InterruptedException {
        Loss loss = losses.poll(Zk.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (loss == null) {
            throw new AssertionError("no loss told within " + Zk.WAIT);
        }
        return loss;
    }

    boolean isEmpty() {
        return losses.isEmpty();
    }
}
