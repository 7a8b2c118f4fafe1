package dev.svc.server.http;

import dev.svc.core.protocol.ArchiveDigest;
import io.vertx.core.Vertx;
import dev.svc.server.packaging.Downloads;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.concurrent.Callable;

/** Agent package and build-context downloads, with their SHA-256 (no auth: integrity by digest). */
public final class DownloadRoutes implements ApiArea {

  private final Vertx vertx;
  private final Downloads downloads;

  public DownloadRoutes(Vertx vertx, Downloads downloads) {
    this.vertx = vertx;
    this.downloads = downloads;
  }

  @Override
  public void mount(Router router, BodyHandler body, BodyHandler largeBody) {
    router.get("/api/v1/agent/package").handler(Handlers.async(ctx -> send(ctx, agentPackage(), "agent package")));
    router.get("/api/v1/agent/package/sha256").handler(Handlers.async(ctx -> digest(ctx, agentPackage(), "agent package")));
    router.get("/api/v1/agent/build-context").handler(Handlers.async(ctx -> send(ctx, buildContext(), "build context")));
    router.get("/api/v1/agent/build-context/sha256")
        .handler(Handlers.async(ctx -> digest(ctx, buildContext(), "build context")));
  }

  /** Built once per server process (not per HTTP verticle), on a worker, on first request. */
  private Future<Optional<Downloads.Archive>> agentPackage() {
    return downloads.once("agent package", () -> blocking(downloads::agentPackage));
  }

  private Future<Optional<Downloads.Archive>> buildContext() {
    return downloads.once("build context", () -> blocking(downloads::buildContext));
  }

  private Future<Optional<Downloads.Archive>> blocking(Callable<Optional<Downloads.Archive>> build) {
    return vertx.executeBlocking(build, false);
  }

  private Future<?> send(RoutingContext ctx, Future<Optional<Downloads.Archive>> archive, String what) {
    return archive.compose(a -> {
      Downloads.Archive found = a.orElseThrow(() -> new ApiError(404, "The " + what + " is not available on this server"));
      return ctx.response()
          .putHeader("Content-Type", "application/gzip")
          .putHeader("Content-Disposition", "attachment; filename=\"" + found.filename() + "\"")
          .putHeader("X-Content-SHA256", found.sha256())
          .sendFile(found.file().toString());
    });
  }

  private Future<?> digest(RoutingContext ctx, Future<Optional<Downloads.Archive>> archive, String what) {
    return archive.map(a -> {
      Downloads.Archive found = a.orElseThrow(() -> new ApiError(404, "The " + what + " is not available on this server"));
      Replies.ok(ctx, new ArchiveDigest(found.filename(), found.sha256()).toJson());
      return null;
    });
  }
}
