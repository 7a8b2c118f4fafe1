package dev.svc.server.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authentication and CSRF rules of protocol.md section 9. "Global" endpoints need the server's
 * token (or a logged-in browser session) when one is set; "agent" endpoints also accept the
 * agent's own token. Browser-style state changes (a session cookie, or Origin / Sec-Fetch headers)
 * need the session's CSRF token unless a validated bearer token exempts them.
 *
 * <p>Every refusal is logged (client address, route, reason; never the presented secret), and a
 * refused credential counts against its address in the {@link AuthThrottle}.
 */
public final class Guard {

  private static final Logger LOG = LoggerFactory.getLogger(Guard.class);

  private final String globalToken;
  private final Sessions sessions;
  private final HostAllowlist hosts;
  private final AuthThrottle throttle;

  public Guard(String globalToken, Sessions sessions, HostAllowlist hosts, AuthThrottle throttle) {
    this.globalToken = globalToken == null || globalToken.isBlank() ? null : globalToken;
    this.sessions = sessions;
    this.hosts = hosts;
    this.throttle = throttle;
  }

  public HostAllowlist hosts() {
    return hosts;
  }

  public AuthThrottle throttle() {
    return throttle;
  }

  /** The client's address as the throttle counts it. */
  static String clientKey(RoutingContext ctx) {
    var remote = ctx.request().remoteAddress();
    return AuthThrottle.key(remote == null ? null : remote.hostAddress());
  }

  /**
   * Logs a refused request and returns {@code error} to throw. {@code credentialRefused}: the
   * request presented a token (or certificate) that was wrong, which counts against its address.
   */
  public ApiError refuse(RoutingContext ctx, ApiError error, boolean credentialRefused) {
    String address = clientKey(ctx);
    if (credentialRefused) {
      throttle.failure(address);
    }
    LOG.warn("Authentication refused: {} {} from {}: {} ({})", ctx.request().method(), ctx.request().path(), address,
        error.status(), error.getMessage());
    return error;
  }

  /**
   * Whether {@code token} is the server's token, for the login form and POST /api/v1/session; a
   * wrong one is logged and counted like any refused credential.
   */
  public boolean checkLogin(RoutingContext ctx, String token) {
    if (token != null && isGlobalToken(token)) {
      return true;
    }
    refuse(ctx, ApiError.forbidden("Invalid token"), token != null);
    return false;
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
        throw refuse(ctx, ApiError.forbidden("Invalid token"), true);
      }
      csrf(ctx);
      return;
    }
    Optional<Sessions.Session> session = sessions.read(ctx);
    if (globalToken != null && session.map(s -> !s.authenticated()).orElse(true)) {
      throw refuse(ctx, ApiError.unauthorized("Authentication required: send 'Authorization: Bearer <token>'"), false);
    }
    csrf(ctx);
  }

  /**
   * Checks a request made for one agent: the global token, the agent's own token, or (on a server
   * without a global token) no token for an agent that has none bound.
   */
  public void agent(RoutingContext ctx, JsonObject agent) {
    agentWithTokenHash(ctx, agent == null ? null : agent.getString("token_hash"));
  }

  /** {@link #agent} for an agent whose token hash is {@code hash} (null: none bound). */
  public void agentWithTokenHash(RoutingContext ctx, String hash) {
    String bearer = bearer(ctx);
    if (bearer != null) {
      if (isGlobalToken(bearer) || Tokens.matchesHash(bearer, hash)) {
        return;
      }
      if (globalToken != null || hash != null) {
        throw refuse(ctx, ApiError.forbidden("Invalid token"), true);
      }
      csrf(ctx);
      return;
    }
    Optional<Sessions.Session> session = sessions.read(ctx);
    boolean loggedIn = session.map(Sessions.Session::authenticated).orElse(false);
    if (!loggedIn && (globalToken != null || hash != null)) {
      throw refuse(ctx, ApiError.unauthorized("Authentication required: send 'Authorization: Bearer <token>'"), false);
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
          ctx.fail(refuse(ctx, ApiError.unauthorized("Authentication required: send 'Authorization: Bearer <token>'"),
              false));
        }
        return;
      }
      tokenHashExists.apply(Tokens.sha256Hex(bearer)).onComplete(ar -> {
        if (ar.failed()) {
          ctx.fail(ar.cause());
        } else if (ar.result()) {
          ctx.next();
        } else {
          ctx.fail(refuse(ctx, ApiError.forbidden("Invalid token"), true));
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
      throw refuse(ctx, ApiError.forbidden("CSRF token missing or invalid"), false);
    }
  }
}
