package dev.svc.server.http;

import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Stateless browser sessions: an HMAC-signed cookie (so sessions survive restarts and work on every
 * node of a cluster) and a CSRF token derived from it.
 */
public final class Sessions {

  public static final String COOKIE = "svc_session";
  public static final String CSRF_HEADER = "X-CSRF-Token";
  public static final String CSRF_FIELD = "csrf_token";
  private static final long LIFETIME_MS = 12L * 3600 * 1000;

  private final byte[] key;
  private final boolean secureCookies;

  public Sessions(byte[] key, boolean secureCookies) {
    this.key = key.clone();
    this.secureCookies = secureCookies;
  }

  /** A session read from a valid, unexpired cookie. */
  public record Session(String cookieValue, boolean authenticated) {
  }

  public Optional<Session> read(RoutingContext ctx) {
    Cookie cookie = ctx.request().getCookie(COOKIE);
    if (cookie == null) {
      return Optional.empty();
    }
    String value = cookie.getValue();
    int dot = value.lastIndexOf('.');
    if (dot <= 0) {
      return Optional.empty();
    }
    String payload = value.substring(0, dot);
    if (!Tokens.equal(sign(payload), value.substring(dot + 1))) {
      return Optional.empty();
    }
    String[] parts;
    try {
      parts = new String(Base64.getUrlDecoder().decode(payload), StandardCharsets.UTF_8).split(":");
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (parts.length != 3 || !parts[0].matches("\\d{1,15}") || Long.parseLong(parts[0]) < System.currentTimeMillis()) {
      return Optional.empty();
    }
    return Optional.of(new Session(value, "1".equals(parts[1])));
  }

  /** Issues a new session cookie and returns its session. */
  public Session issue(RoutingContext ctx, boolean authenticated) {
    String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(
        ((System.currentTimeMillis() + LIFETIME_MS) + ":" + (authenticated ? "1" : "0") + ":"
            + dev.svc.core.Ids.randomHex(16)).getBytes(StandardCharsets.UTF_8));
    String value = payload + "." + sign(payload);
    ctx.response().addCookie(Cookie.cookie(COOKIE, value).setPath("/").setHttpOnly(true)
        .setSameSite(CookieSameSite.STRICT).setSecure(secureCookies).setMaxAge(LIFETIME_MS / 1000));
    return new Session(value, authenticated);
  }

  public void clear(RoutingContext ctx) {
    ctx.response().addCookie(Cookie.cookie(COOKIE, "").setPath("/").setHttpOnly(true)
        .setSameSite(CookieSameSite.STRICT).setSecure(secureCookies).setMaxAge(0));
  }

  public String csrfToken(Session session) {
    return sign("csrf:" + session.cookieValue());
  }

  /** Whether the request carries the CSRF token of its session (header, or form field for plain forms). */
  public boolean csrfValid(RoutingContext ctx, Session session) {
    String presented = ctx.request().getHeader(CSRF_HEADER);
    if (presented == null) {
      presented = ctx.request().getFormAttribute(CSRF_FIELD);
    }
    return presented != null && Tokens.equal(presented, csrfToken(session));
  }

  private String sign(String payload) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
