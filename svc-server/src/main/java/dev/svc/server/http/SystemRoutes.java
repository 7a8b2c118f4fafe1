package dev.svc.server.http;

import dev.svc.core.SvcVersion;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Health, version, the OpenAPI description and browser sessions (login with the token once). */
final class SystemRoutes {

  static final String OPENAPI_RESOURCE = "openapi.json";

  private final ApiContext api;
  private final Buffer openapi;

  SystemRoutes(ApiContext api) {
    this.api = api;
    this.openapi = loadOpenApi();
  }

  void mount(Router router, BodyHandler body) {
    router.get("/api/v1/health").handler(ctx -> Replies.ok(ctx, new JsonObject().put("status", "ok")));
    router.get("/api/v1/version").handler(ctx -> Replies.ok(ctx, new JsonObject().put("api_version", SvcVersion.API_VERSION)
        .put("name", SvcVersion.NAME).put("version", SvcVersion.version()).put("schema_version", api.schemaVersion())));
    router.get("/api/v1/openapi.json").handler(ctx -> ctx.response()
        .putHeader("Content-Type", "application/json; charset=utf-8").end(openapi));
    router.get("/api/v1/session").handler(this::session);
    router.post("/api/v1/session").handler(body).handler(Handlers.async(this::login));
    router.delete("/api/v1/session").handler(this::logout);
  }

  private void session(RoutingContext ctx) {
    Sessions sessions = api.guard().sessions();
    Sessions.Session session = sessions.read(ctx).orElseGet(() -> sessions.issue(ctx, false));
    Replies.ok(ctx, new JsonObject()
        .put("auth_required", api.guard().hasGlobalToken())
        .put("authenticated", session.authenticated() || !api.guard().hasGlobalToken())
        .put(Sessions.CSRF_FIELD, sessions.csrfToken(session)));
  }

  private Future<?> login(RoutingContext ctx) {
    String token = Body.of(ctx).requireString("token");
    if (!api.guard().hasGlobalToken()) {
      throw ApiError.conflict("This server has no auth token; no login is needed");
    }
    if (!api.guard().checkLogin(ctx, token)) {
      throw ApiError.forbidden("Invalid token");
    }
    Sessions.Session session = api.guard().sessions().issue(ctx, true);
    Replies.ok(ctx, new JsonObject().put("authenticated", true)
        .put(Sessions.CSRF_FIELD, api.guard().sessions().csrfToken(session)));
    return Future.succeededFuture();
  }

  private void logout(RoutingContext ctx) {
    api.guard().sessions().clear(ctx);
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
