package dev.svc.agent.uplink;

import io.netty.handler.ssl.NotSslRecordException;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.StreamResetException;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes of the agent's server, in the configured order, and the one it talks to now. A request
 * that fails below HTTP (refused, reset, timed out, TLS handshake) moves the agent on to the next
 * node, round-robin; an answer with any HTTP status does not, since a node that answers is up and
 * the others share its database. The control and uplink verticles share one instance, so
 * heartbeats and the spool go to the same node. Thread-safe.
 */
public final class Servers {

  private static final Logger LOG = LoggerFactory.getLogger(Servers.class);

  private final List<URI> uris;
  private final AtomicInteger current = new AtomicInteger();

  public Servers(List<URI> uris) {
    if (uris.isEmpty()) {
      throw new IllegalArgumentException("no server");
    }
    this.uris = List.copyOf(uris);
  }

  public List<URI> all() {
    return uris;
  }

  /** The node requests go to now. */
  public URI current() {
    return uris.get(current.get());
  }

  /**
   * A request to {@code failed} did not get through because of {@code cause}: when that is a
   * connection-level failure and {@code failed} is still the current node, the next one becomes
   * current (and says so once in the log). A second request failing on the same node, from another
   * verticle, does not skip a node. Returns the node current now.
   */
  public URI failed(URI failed, Throwable cause) {
    int index = uris.indexOf(failed);
    if (uris.size() > 1 && index >= 0 && connectionLevel(cause)) {
      int next = (index + 1) % uris.size();
      if (current.compareAndSet(index, next)) {
        LOG.warn("server {} unreachable ({}); using {}", failed, reason(cause), uris.get(next));
      }
    }
    return current();
  }

  /** Whether {@code failure} happened below HTTP: no answer came, so another node may give one. */
  public static boolean connectionLevel(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      // IOException: connect refused or timed out, reset, unknown host, TLS (SSLException)
      if (t instanceof IOException || t instanceof TimeoutException || t instanceof HttpClosedException
          || t instanceof StreamResetException || t instanceof NotSslRecordException) {
        return true;
      }
    }
    return false;
  }

  /** The innermost message of {@code failure}, e.g. "Connection refused"; a TLS failure says it is one. */
  public static String reason(Throwable failure) {
    Throwable root = failure;
    boolean tls = false;
    while (true) {
      tls |= root instanceof SSLException;
      if (root.getCause() == null || root.getCause() == root) {
        break;
      }
      root = root.getCause();
    }
    String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    return tls ? "TLS handshake failed: " + message : message;
  }
}
