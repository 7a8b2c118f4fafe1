package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Guessing tokens is throttled per client address: after a burst of failures every request that
 * presents a credential gets 429 with Retry-After until the address earns another try, and each
 * failure is logged with address, route and reason, never with the token that was tried. Requests
 * that succeed are neither counted nor held up.
 */
class AuthThrottleTest {

  private static final String TOKEN = "throttle-test-global-token";
  /** More than enough tries to see the 429: one try comes back every 6 s, these take well under a second each. */
  private static final int ENOUGH = 2 * AuthThrottle.DEFAULT_BURST;

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.authToken(TOKEN));

  @Test
  void guessesFromOneAddressAreCutOffAfterTheBurstAndLoggedWithoutTheToken() {
    TestServer server = servers.start();
    List<Integer> statuses = new ArrayList<>();
    HttpResponse<Buffer> blocked = null;
    String log;
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (int i = 0; i < ENOUGH && blocked == null; i++) {
        HttpResponse<Buffer> guess = server.get("/api/v1/agents", "guess-number-" + i);
        statuses.add(guess.statusCode());
        if (guess.statusCode() == 429) {
          blocked = guess;
        }
      }
    } finally {
      System.setErr(original);
      log = captured.toString(StandardCharsets.UTF_8);
    }
    // a refill only adds tries, so at least the burst is answered 403 before the first 429
    assertThat(statuses.subList(0, AuthThrottle.DEFAULT_BURST)).containsOnly(403);
    assertThat(blocked).as("a 429 within %d guesses: %s", ENOUGH, statuses).isNotNull();
    assertThat(blocked.bodyAsJsonObject().getString("error")).contains("Too many failed authentication attempts");
    long retryAfter = Long.parseLong(blocked.getHeader("Retry-After"));
    assertThat(retryAfter).isBetween(1L, TimeUnit.MILLISECONDS.toSeconds(AuthThrottle.DEFAULT_REFILL_MS));

    // while blocked, the right token is refused too (or a hit would stand out), and the login as well
    assertThat(server.get("/api/v1/agents", TOKEN).statusCode()).isEqualTo(429);
    assertThat(server.post("/api/v1/session", new JsonObject().put("token", TOKEN)).statusCode()).isEqualTo(429);
    // requests without credentials are not held up
    assertThat(server.get("/api/v1/health").statusCode()).isEqualTo(200);

    assertThat(log).contains("127.0.0.1").contains("GET /api/v1/agents").contains("Invalid token");
    assertThat(log).doesNotContain("guess-number-");
  }

  @Test
  void wrongLoginsAreThrottledLikeWrongBearerTokens() {
    TestServer server = servers.start();
    int status = 0;
    for (int i = 0; i < ENOUGH && status != 429; i++) {
      status = server.post("/api/v1/session", new JsonObject().put("token", "login-guess-" + i)).statusCode();
    }
    assertThat(status).isEqualTo(429);
    HttpResponse<Buffer> form = TestServer.send(server.client(), HttpMethod.POST, "/login", null,
        Buffer.buffer("token=" + TOKEN), MultiMap.caseInsensitiveMultiMap()
            .add("Content-Type", "application/x-www-form-urlencoded"));
    assertThat(form.statusCode()).isEqualTo(429);
  }

  @Test
  void successfulRequestsAreNeitherCountedNorRefused() {
    TestServer server = servers.start();
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < 5 * AuthThrottle.DEFAULT_BURST; i++) {
      statuses.add(server.get("/api/v1/agents", TOKEN).statusCode());
    }
    assertThat(statuses).containsOnly(200);
    assertThat(server.post("/api/v1/session", new JsonObject().put("token", TOKEN)).statusCode()).isEqualTo(200);
  }

  @Test
  void theBucketRefillsAtItsRateAndTheTableStaysBounded() {
    AtomicLong now = new AtomicLong();
    AuthThrottle throttle = new AuthThrottle(3, 1_000, 100, now::get);
    for (int i = 0; i < 3; i++) {
      assertThat(throttle.retryAfterSeconds("10.0.0.1")).isZero();
      throttle.failure("10.0.0.1");
    }
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).isEqualTo(1);
    assertThat(throttle.retryAfterSeconds("10.0.0.2")).as("another address").isZero();
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).isEqualTo(1);
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).as("one try earned").isZero();
    throttle.failure("10.0.0.1");
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).isEqualTo(1);
    // an address whose bucket is full again is forgotten
    now.addAndGet(TimeUnit.SECONDS.toNanos(10));
    assertThat(throttle.retryAfterSeconds("10.0.0.1")).isZero();
    assertThat(throttle.size()).isZero();

    for (int i = 0; i < 10_000; i++) {
      throttle.failure("10.1." + (i / 250) + "." + (i % 250));
    }
    assertThat(throttle.size()).isEqualTo(100);
  }

  @Test
  void anIpv6ClientIsCountedByItsSlash64() {
    assertThat(AuthThrottle.key("2001:db8:1:2:aaaa::1")).isEqualTo(AuthThrottle.key("2001:db8:1:2:bbbb::2"));
    assertThat(AuthThrottle.key("2001:db8:1:2::1")).isNotEqualTo(AuthThrottle.key("2001:db8:1:3::1"));
    assertThat(AuthThrottle.key("::ffff:192.0.2.7")).isEqualTo("192.0.2.7");
    assertThat(AuthThrottle.key("192.0.2.7")).isEqualTo("192.0.2.7");
  }
}
