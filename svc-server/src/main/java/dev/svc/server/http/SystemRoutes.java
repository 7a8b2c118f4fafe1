package dev.svc.server.http;

import dev.svc.core.SvcVersion;
import dev.svc.server.cluster.ClusterNode;
import dev.svc.server.cluster.Singletons;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Health, version, the OpenAPI description and browser sessions (login with the token once). */
public final class SystemRoutes implements ApiArea {

  static final String OPENAPI_RESOURCE = "openapi.json";

  private final Guard guard;
  private final int schemaVersion;
  private final Buffer openapi;
  private final ClusterNode cluster;
  private final Singletons singletons;

  /** {@code cluster}: this node's membership, null for a single node; {@code singletons}: who runs them. */
  public SystemRoutes(Guard guard, int schemaVersion, ClusterNode cluster, Singletons singletons) {
    this.guard = guard;
    this.schemaVersion = schemaVersion;
    this.openapi = loadOpenApi();
    this.cluster = cluster;
    this.singletons = singletons;
  }

  @Override
  public void mount(Router router, BodyHandler body, BodyHandler largeBody) {
    router.get("/api/v1/health").handler(Handlers.async(this::health));
    router.get("/api/v1/version").handler(ctx -> Replies.ok(ctx, new JsonObject().put("api_version", SvcVersion.API_VERSION)
        .put("name", SvcVersion.NAME).put("version", SvcVersion.version()).put("schema_version", schemaVersion)));
    router.get("/api/v1/openapi.json").handler(ctx -> ctx.response()
        .putHeader("Content-Type", "application/json; charset=utf-8").end(openapi));
    router.get("/api/v1/metrics").handler(this::metrics);
    router.get("/api/v1/session").handler(this::session);
    router.post("/api/v1/session").handler(body).handler(Handlers.async(this::login));
    router.delete("/api/v1/session").handler(this::logout);
  }

  /**
   * {@code {"status":"ok"}}; a node of a cluster adds {@code cluster}: this node's id, the members
   * with the addresses they serve on, and the node that runs the singletons.
   */
  private Future<Void> health(RoutingContext ctx) {
    JsonObject health = new JsonObject().put("status", "ok");
    if (cluster == null) {
      Replies.ok(ctx, health);
      return Future.succeededFuture();
    }
    return cluster.members().map(members -> {
      JsonArray listed = new JsonArray();
      members.forEach(m -> listed.add(m.toJson()));
      Replies.ok(ctx, health.put("cluster", new JsonObject().put("node", cluster.id()).put("members", listed)
          .put("singletons", singletons.holder())));
      return null;
    });
  }

  /** The server's counters in Prometheus' text format (a scraper sends the global token as its bearer token). */
  private void metrics(RoutingContext ctx) {
    try {
      guard.global(ctx);
    } catch (ApiError e) {
      ctx.fail(e);
      return;
    }
    AuthThrottle.Counts auth = guard.throttle().counts();
    StringBuilder out = new StringBuilder();
    metric(out, "svc_auth_failures_total", "counter", "Credentials refused (tokens, logins, client certificates).",
        auth.failures());
    metric(out, "svc_auth_lockouts_total", "counter", "Client addresses locked out by the failed-authentication"
        + " throttle.", auth.lockouts());
    metric(out, "svc_auth_throttled_total", "counter", "Requests answered 429 during a lock-out.", auth.throttled());
    metric(out, "svc_auth_locked_addresses", "gauge", "Client addresses locked out now.", auth.lockedNow());
    ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        .putHeader("Cache-Control", "no-store").end(out.toString());
  }

  private static void metric(StringBuilder out, String name, String type, String help, long value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n')
        .append("# TYPE ").append(name).append(' ').append(type).append('\n')
        .append(name).append(' ').append(value).append('\n');
  }

  private void session(RoutingContext ctx) {
    Sessions sessions = guard.sessions();
    Sessions.Session session = sessions.read(ctx).orElseGet(() -> sessions.issue(ctx, false));
    Replies.ok(ctx, new JsonObject()
        .put("auth_required", guard.hasGlobalToken())
        .put("authenticated", session.authenticated() || !guard.hasGlobalToken())
        .put(Sessions.CSRF_FIELD, sessions.csrfToken(session)));
  }

  private Future<?> login(RoutingContext ctx) {
    String token = Body.of(ctx).requireString("token");
    if (!guard.hasGlobalToken()) {
      throw ApiError.conflict("This server has no auth token; no login is needed");
    }
    guard.checkLogin(ctx, token).ifPresent(error -> {
      throw error;
    });
    Sessions.Session session = guard.sessions().issue(ctx, true);
    Replies.ok(ctx, new JsonObject().put("authenticated", true)
        .put(Sessions.CSRF_FIELD, guard.sessions().csrfToken(session)));
    return Future.succeededFuture();
  }

  private void logout(RoutingContext ctx) {
    guard.sessions().clear(ctx);
    Replies.ok(ctx, new JsonObject().put("authenticated", false));
  }

  private static Buffer loadOpenApi() {
    try (InputStream in = SystemRoutes.class.getClassLoader().getResourceAsStream(OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(OPENAPI_RESOURCE + " is missing from the classpath");
      }
      return Buffer.buffer(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
