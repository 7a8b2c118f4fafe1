package dev.svc.perf.fleet;

import io.vertx.core.VertxException;
import io.vertx.core.http.HttpClosedException;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/** Short names for why a request got no answer, so that errors can be counted by kind. */
final class FleetErrors {

  private FleetErrors() {
  }

  static String kind(Throwable error) {
    Throwable e = error;
    while (e.getCause() != null && e.getCause() != e && !(e instanceof SSLException)) {
      e = e.getCause();
    }
    if (e instanceof TimeoutException || (e instanceof VertxException && String.valueOf(e.getMessage()).contains("timeout"))
        || String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("timed out")) {
      return "timeout";
    }
    if (e instanceof HttpClosedException) {
      return "connection closed";
    }
    if (e instanceof ConnectException) {
      return "cannot connect";
    }
    if (e instanceof SSLException) {
      return "TLS: " + shorten(e.getMessage());
    }
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + shorten(e.getMessage()));
  }

  private static String shorten(String message) {
    String oneLine = String.valueOf(message).replaceAll("\\s+", " ");
    return oneLine.length() <= 80 ? oneLine : oneLine.substring(0, 77) + "...";
  }
}
