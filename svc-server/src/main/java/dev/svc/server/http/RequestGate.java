package dev.svc.server.http;

import dev.svc.core.Ids;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Function;

/**
 * The first handler of every request, API and dashboard alike: the Host check. A request whose
 * Host header names a host this server does not answer to (see {@link HostAllowlist}) is refused
 * with 421, unless it proves itself with a bearer token the server knows (the global token or an
 * agent's own token). A DNS-rebinding page is same-origin with the attacker's name, so CSRF tokens
 * do not stop it; but it cannot know a token. So it gets nothing, even from an open server, while
 * agents and scripts holding a token keep working under any name.
 *
 * <p>The failure throttle is not applied here: a valid credential is never refused, so each
 * credential is checked where it is used, and {@link Guard#refuse} answers a wrong one with 429
 * while its address is locked out.
 */
public final class RequestGate implements Handler<RoutingContext> {

  private final Guard guard;
  private final Function<String, Future<Boolean>> tokenHashExists;

  private RequestGate(Guard guard, Function<String, Future<Boolean>> tokenHashExists) {
    this.guard = guard;
    this.tokenHashExists = tokenHashExists;
  }

  /** The gate of the full server; {@code tokenHashExists} tells whether a live agent holds a token hash. */
  public static RequestGate of(Guard guard, Function<String, Future<Boolean>> tokenHashExists) {
    return new RequestGate(guard, tokenHashExists);
  }

  /** The legacy viewer has no tokens at all: only the Host check. */
  public static Handler<RoutingContext> hostOnly(HostAllowlist hosts) {
    return ctx -> {
      String host = host(ctx);
      if (hosts.allows(host)) {
        ctx.next();
      } else {
        misdirected(ctx, host);
      }
    };
  }

  @Override
  public void handle(RoutingContext ctx) {
    String host = host(ctx);
    if (guard.hosts().allows(host)) {
      ctx.next();
      return;
    }
    String bearer = ctx.request().getHeader("Authorization");
    if (bearer == null || !bearer.regionMatches(true, 0, "Bearer ", 0, 7) || bearer.substring(7).isBlank()) {
      misdirected(ctx, host);
      return;
    }
    String token = bearer.substring(7).trim();
    if (guard.isGlobalToken(token)) {
      ctx.next();
      return;
    }
    // the body must wait for the lookup: the routes' BodyHandler resumes the request
    ctx.request().pause();
    tokenHashExists.apply(Ids.sha256Hex(token)).onComplete(ar -> {
      if (ar.succeeded() && ar.result()) {
        ctx.next();
        HttpMethod method = ctx.request().method();
        if (method != HttpMethod.POST && method != HttpMethod.PUT && method != HttpMethod.PATCH) {
          ctx.request().resume(); // no BodyHandler on these routes: let the request end
        }
      } else {
        guard.refuse(ctx, ApiError.forbidden("Unknown token under a foreign Host"), true);
        misdirected(ctx, host);
      }
    });
  }

  private static String host(RoutingContext ctx) {
    HostAndPort authority = ctx.request().authority();
    return authority == null ? null : authority.host();
  }

  private static void misdirected(RoutingContext ctx, String host) {
    String shown = host.length() > 100 ? host.substring(0, 100) + "…" : host;
    reply(ctx, 421, "This server does not answer to the host name '" + shown + "' (a guard against DNS rebinding);"
        + " use localhost, an IP address, or a name given to svc web with --san");
  }

  private static void reply(RoutingContext ctx, int status, String message) {
    if (ctx.request().path().startsWith("/api/")) {
      Replies.error(ctx, status, message);
    } else {
      ctx.response().setStatusCode(status).putHeader("Content-Type", "text/plain; charset=utf-8")
          .putHeader("X-Content-Type-Options", "nosniff").putHeader("Cache-Control", "no-store").end(message + "\n");
    }
  }
}
