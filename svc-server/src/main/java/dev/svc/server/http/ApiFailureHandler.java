package dev.svc.server.http;

import dev.svc.core.Ids;
import dev.svc.server.db.StorageFault;
import dev.svc.server.settings.InvalidSetting;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpClosedException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns every failure under /api/ into {"error": …} with its status; the storage's temporary faults
 * (database busy or unreachable, disk full: {@link StorageFault}) become 503/507 with Retry-After; real
 * faults get a 500 with a correlation id.
 */
public final class ApiFailureHandler implements Handler<RoutingContext> {

  private static final Logger LOG = LoggerFactory.getLogger(ApiFailureHandler.class);

  @Override
  public void handle(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (clientWentAway(failure)) {
      // nobody is left to answer, and nothing on the server broke: a download or stream cut short
      LOG.debug("Client went away during {} {}: {}", ctx.request().method(), ctx.request().path(), String.valueOf(failure));
      return;
    }
    if (failure instanceof ApiError error) {
      if (error.retryAfterSeconds() > 0 && !ctx.response().headWritten()) {
        ctx.response().putHeader("Retry-After", Long.toString(error.retryAfterSeconds()));
      }
      Replies.error(ctx, error.status(), error.getMessage());
      return;
    }
    if (failure instanceof InvalidSetting invalid) {
      Replies.error(ctx, 400, invalid.getMessage());
      return;
    }
    StorageFault storage = failure == null ? null : StorageFault.of(failure).orElse(null);
    if (storage != null) {
      // the storage's state, not the request, failed it: temporary, so the client is told when to retry
      LOG.warn("{} {}: {} ({})", ctx.request().method(), ctx.request().path(), storage.status(), failure.toString());
      if (!ctx.response().headWritten()) {
        ctx.response().putHeader("Retry-After", Long.toString(storage.retryAfterS()));
      }
      Replies.error(ctx, storage.status(), storage.message());
      return;
    }
    int status = ctx.statusCode();
    if (failure == null || status == 413 || status == 404 || status == 405 || status == 400) {
      switch (status) {
        case 400:
          Replies.error(ctx, 400, "Bad request");
          return;
        case 401:
          Replies.error(ctx, 401, "Authentication required");
          return;
        case 403:
          Replies.error(ctx, 403, "Forbidden");
          return;
        case 404:
          Replies.error(ctx, 404, "Not found");
          return;
        case 405:
          Replies.error(ctx, 405, "Method not allowed");
          return;
        case 413:
          Replies.error(ctx, 413, "Request body too large");
          return;
        case 415:
          Replies.error(ctx, 415, "Unsupported media type");
          return;
        default:
          if (status > 0 && status < 500) {
            Replies.error(ctx, status, "Request refused");
            return;
          }
      }
    }
    String correlationId = Ids.newId();
    LOG.error("Server fault {} on {} {}", correlationId, ctx.request().method(), ctx.request().path(), failure);
    Replies.json(ctx, 500, new io.vertx.core.json.JsonObject()
        .put("error", "Internal server error").put("correlation_id", correlationId));
  }

  /** The failure is the client closing (or resetting) the connection before the response was written. */
  static boolean clientWentAway(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof HttpClosedException || t instanceof ClosedChannelException) {
        return true;
      }
      if (t instanceof IOException && t.getMessage() != null
          && (t.getMessage().contains("Connection reset") || t.getMessage().contains("Broken pipe"))) {
        return true;
      }
    }
    return false;
  }
}
