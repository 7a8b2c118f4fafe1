package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.async.ResultCallback;
import java.io.IOException;

/**
 * A docker-java stream callback that keeps its failure for the caller to report, instead of
 * docker-java logging it with a stack trace as an error of its own.
 */
abstract class QuietCallback<T> extends ResultCallback.Adapter<T> {

  private volatile Throwable failure;

  @Override
  public void onError(Throwable throwable) {
    if (failure == null) {
      failure = throwable;
    }
    try {
      close();
    } catch (IOException e) {
      // the stream is gone either way
    }
  }

  /** Why the stream failed, or null when it did not. */
  Throwable failure() {
    return failure;
  }
}
