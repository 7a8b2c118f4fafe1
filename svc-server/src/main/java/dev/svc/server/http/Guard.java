package dev.svc.server.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;

/**
 * Authentication and CSRF rules of protocol.md section 9. "Global" endpoints need the server's
 * token (or a logged-in browser session) when one is set; "agent" endpoints also accept the
 * agent's own token. Browser-style state changes (a session cookie, or Origin / Sec-Fetch headers)
 * need the session's CSRF token unless a validated bearer token exempts them.
 */
public final class Guard {

  private final String globalToken;
  private final Sessions sessions;

  public Guard(String globalToken, Sessions sessions) {
    this.globalToken = globalToken == null || globalToken.isBlank() ? null : globalToken;
    this.sessions = sessions;
  }

  public boolean hasGlobalToken() {
    return globalToken != null;
  }

  public Sessions sessions() {
    return sessions;
  }

  /** The bearer token, null when there is no Authorization header; 401 when the header is malformed. */
  public static String bearer(RoutingContext ctx) {
    String header = ctx.request().getHeader("Authorization");
    if (header == null) {
      return null;
    }
    if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw ApiError.unauthorized("Authorization header must be 'Bearer <token>'");
    }
    String token = header.substring(7).trim();
    return token.isEmpty() ? null : token;
  }

  public boolean isGlobalToken(String token) {
    return globalToken != null && Tokens.equal(token, globalToken);
  }

  /** Checks a request to a global endpoint; throws the 401/403 ApiError when it is refused. */
  public void global(RoutingContext ctx) {
    String bearer = bearer(ctx);
    if (bearer != null) {
      if (isGlobalToken(bearer)) {
        return;
      }
      if (globalToken != null) {
        throw ApiError.forbidden("Invalid token");
      }
      csrf(ctx);
      return;
    }
    Optional<Sessions.Session> session = sessions.read(ctx);
    if (globalToken != null && session.map(s -> !s.authenticated()).orElse(true)) {
      throw ApiError.unauthorized("Authentication required: send 'Authorization: Bearer <token>'");
    }
    csrf(ctx);
  }

  /**
   * Checks a request made for one agent: the global token, the agent's own token, or (on a server
   * without a global token) no token for an agent that has none bound.
   */
  public void agent(RoutingContext ctx, JsonObject agent) {
    String bearer = bearer(ctx);
    String hash = agent == null ? null : agent.getString("token_hash");
    if (bearer != null) {
      if (isGlobalToken(bearer) || Tokens.matchesHash(bearer, hash)) {
        return;
      }
      if (globalToken != null || hash != null) {
        throw ApiError.forbidden("Invalid token");
      }
      csrf(ctx);
      return;
    }
    Optional<Sessions.Session> session = sessions.read(ctx);
    boolean loggedIn = session.map(Sessions.Session::authenticated).orElse(false);
    if (!loggedIn && (globalToken != null || hash != null)) {
      throw ApiError.unauthorized("Authentication required: send 'Authorization: Bearer <token>'");
    }
    csrf(ctx);
  }

  /**
   * The first check of an agent endpoint, before its body is read: with a global token set, a
   * request without credentials is 401 and one whose bearer token neither is the global token nor
   * belongs to any agent is 403. The exact agent's token is checked later by {@link #agent}.
   */
  public Handler<RoutingContext> agentPrecheck(java.util.function.Function<String, Future<Boolean>> tokenHashExists) {
    return ctx -> {
      String bearer;
      try {
        bearer = bearer(ctx);
      } catch (ApiError e) {
        ctx.fail(e);
        return;
      }
      if (globalToken == null || (bearer != null && isGlobalToken(bearer))) {
        ctx.next();
        return;
      }
      if (bearer == null) {
        if (sessions.read(ctx).map(Sessions.Session::authenticated).orElse(false)) {
          ctx.next();
        } else {
          ctx.fail(ApiError.unauthorized("Authentication required: send 'Authorization: Bearer <token>'"));
        }
        return;
      }
      tokenHashExists.apply(Tokens.sha256Hex(bearer)).onComplete(ar -> {
        if (ar.failed()) {
          ctx.fail(ar.cause());
        } else if (ar.result()) {
          ctx.next();
        } else {
          ctx.fail(ApiError.forbidden("Invalid token"));
        }
      });
    };
  }

  /** A browser-style state change without a validated bearer token must carry its session's CSRF token. */
  void csrf(RoutingContext ctx) {
    HttpMethod method = ctx.request().method();
    if (method == HttpMethod.GET || method == HttpMethod.HEAD || method == HttpMethod.OPTIONS) {
      return;
    }
    Optional<Sessions.Session> session = sessions.read(ctx);
    boolean browserStyle = session.isPresent() || ctx.request().getHeader("Cookie") != null
        || ctx.request().getHeader("Origin") != null || ctx.request().getHeader("Sec-Fetch-Site") != null;
    if (!browserStyle) {
      return;
    }
    if (session.isEmpty() || !sessions.csrfValid(ctx, session.get())) {
      throw ApiError.forbidden("CSRF token missing or invalid");
    }
  }
}
