package dev.svc.server.http;

import dev.svc.server.store.StoredAgent;
import dev.svc.core.Ids;
import dev.svc.server.store.TokenState;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.function.Function;
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
   * request presented a token (or certificate) that was wrong, which counts against its address;
   * from an address locked out by the {@link AuthThrottle} the answer is 429 with Retry-After
   * instead, logged once per lock-out (when it begins, and when it ends: {@link #logEndedLockouts}).
   */
  public ApiError refuse(RoutingContext ctx, ApiError error, boolean credentialRefused) {
    String address = clientKey(ctx);
    if (credentialRefused) {
      long retryAfter = throttle.retryAfterSeconds(address);
      boolean lockedOut = throttle.failure(address);
      if (retryAfter > 0) {
        throttle.throttled(address);
        LOG.debug("Authentication throttled: {} {} from {} (429)", ctx.request().method(), ctx.request().path(), address);
        return ApiError.tooManyRequests("Too many failed authentication attempts from this address; try again in "
            + retryAfter + " s", retryAfter);
      }
      if (lockedOut) {
        LOG.warn("Authentication throttle: {} locked out after {} refused credentials; its wrong credentials get 429"
            + " until it earns another try (one every {} s); valid credentials still pass", address, throttle.burst(),
            throttle.refillSeconds());
      }
    }
    LOG.warn("Authentication refused: {} {} from {}: {} ({})", ctx.request().method(), ctx.request().path(), address,
        error.status(), error.getMessage());
    return error;
  }

  /** Logs the lock-outs that ended since the last call, one line each (a periodic timer calls it). */
  public void logEndedLockouts() {
    for (AuthThrottle.Ended ended : throttle.takeEnded()) {
      LOG.warn("Authentication throttle: lock-out of {} ended after {} s; {} requests were refused with 429",
          ended.address(), Math.max(1, (ended.lockedMs() + 999) / 1000), ended.refused());
    }
  }

  /**
   * Whether {@code token} is the server's token, for the login form and POST /api/v1/session: empty
   * when it is; otherwise the error to answer (403, or 429 during a lock-out), logged and counted
   * like any refused credential.
   */
  public Optional<ApiError> checkLogin(RoutingContext ctx, String token) {
    if (token != null && isGlobalToken(token)) {
      return Optional.empty();
    }
    return Optional.of(refuse(ctx, ApiError.forbidden("Invalid token"), token != null));
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
    if (!authenticateGlobal(ctx)) {
      csrf(ctx);
    }
  }

  /**
   * A global route's credentials, checked as a route handler before its body is read: a request
   * that may not call it is refused without the server reading (up to 1 MiB of) its body. The
   * CSRF rule waits for {@link #global} in the route's own handler, since its token may be a form
   * field of the body.
   */
  public Handler<RoutingContext> globalFirst() {
    return ctx -> {
      try {
        authenticateGlobal(ctx);
      } catch (ApiError e) {
        ctx.fail(e);
        return;
      }
      ctx.next();
    };
  }

  /** The credentials of a global request; true when a valid bearer token exempts it from CSRF. Throws 401/403. */
  private boolean authenticateGlobal(RoutingContext ctx) {
    String bearer = bearer(ctx);
    if (bearer != null) {
      if (isGlobalToken(bearer)) {
        return true;
      }
      if (globalToken != null) {
        throw refuse(ctx, ApiError.forbidden("Invalid token"), true);
      }
      return false;
    }
    Optional<Sessions.Session> session = sessions.read(ctx);
    if (globalToken != null && session.map(s -> !s.authenticated()).orElse(true)) {
      throw refuse(ctx, ApiError.unauthorized("Authentication required: send 'Authorization: Bearer <token>'"), false);
    }
    return false;
  }

  /**
   * Checks a request made for one agent: the global token, the agent's own token, or (on a server
   * without a global token) no token for an agent that has none bound.
   */
  public void agent(RoutingContext ctx, StoredAgent agent) {
    agentWithTokenHash(ctx, agent == null ? null : agent.tokenHash());
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
   * The first check of an agent endpoint, before its body is read: a token revoked by the
   * deletion of its agent is 403 on any server; with a global token set, a request without
   * credentials is 401 and one whose bearer token neither is the global token nor belongs to a live
   * agent is 403. The exact agent's token is checked later by {@link #agent}.
   */
  public Handler<RoutingContext> agentPrecheck(Function<String, Future<TokenState>> tokenState) {
    return ctx -> {
      String bearer;
      try {
        bearer = bearer(ctx);
      } catch (ApiError e) {
        ctx.fail(e);
        return;
      }
      if (bearer != null && isGlobalToken(bearer)) {
        ctx.next();
        return;
      }
      if (bearer == null) {
        precheck(ctx, null, null);
        return;
      }
      Future<TokenState> state = tokenState.apply(Ids.sha256Hex(bearer));
      if (state.isComplete()) {
        if (state.succeeded()) {
          precheck(ctx, bearer, state.result());
        } else {
          ctx.fail(state.cause());
        }
        return;
      }
      // The body handler that follows reads the body only if it has not arrived meanwhile.
      ctx.request().pause();
      state.onComplete(known -> precheck(ctx, bearer, known), ctx::fail);
    };
  }

  private void precheck(RoutingContext ctx, String bearer, TokenState state) {
    if (state == TokenState.REVOKED) {
      ctx.fail(refuse(ctx, ApiError.forbidden("This token was revoked: its agent was deleted on the server. An operator"
          + " provisions the agent again (POST /api/v1/agents) and the host enrols with the new token"), true));
    } else if (globalToken == null || state == TokenState.LIVE) {
      ctx.next();
    } else if (bearer != null) {
      ctx.fail(refuse(ctx, ApiError.forbidden("Invalid token"), true));
    } else if (sessions.read(ctx).map(Sessions.Session::authenticated).orElse(false)) {
      ctx.next();
    } else {
      ctx.fail(refuse(ctx, ApiError.unauthorized("Authentication required: send 'Authorization: Bearer <token>'"),
          false));
    }
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
