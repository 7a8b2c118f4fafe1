package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Guessing tokens is throttled per client address: after a burst of failures every wrong
 * credential from that address gets 429 with Retry-After until the address earns another try,
 * while valid credentials from it keep passing (a shared address cannot lock real agents out).
 * Each failure is logged with address, route and reason, never with the token that was tried; a
 * lock-out is logged once when it begins and once when it ends, and counted in the metrics.
 */
class AuthThrottleTest {

  private static final String TOKEN = "throttle-test-global-token";
  /** More than enough tries to see the 429: one try comes back every 6 s, these take well under a second each. */
  private static final int ENOUGH = 2 * AuthThrottle.DEFAULT_BURST;

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.authToken(TOKEN));

  /** What the server writes to standard error while {@code action} runs (slf4j-simple logs there). */
  private static String stderrOf(Runnable action) {
    return stderrOf(written -> action.run());
  }

  /** As {@link #stderrOf(Runnable)}; {@code action} may read what has been written so far. */
  private static String stderrOf(Consumer<Supplier<String>> action) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.accept(() -> captured.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  /** The dashboard's login form, posted as a browser posts it. */
  private static HttpResponse<Buffer> loginForm(WebClient client, String token) {
    return client.post("/login").sendForm(MultiMap.caseInsensitiveMultiMap().add("token", token)).await();
  }

  /** Wrong tokens until the first 429; the statuses and that 429. */
  private static HttpResponse<Buffer> guessUntilThrottled(TestServer server, List<Integer> statuses) {
    for (int i = 0; i < ENOUGH; i++) {
      HttpResponse<Buffer> guess = server.get("/api/v1/agents", "guess-number-" + i);
      statuses.add(guess.statusCode());
      if (guess.statusCode() == 429) {
        return guess;
      }
    }
    return null;
  }

  @Test
  void guessesFromOneAddressAreCutOffAfterTheBurstAndLoggedWithoutTheToken() {
    TestServer server = servers.start();
    List<Integer> statuses = new ArrayList<>();
    HttpResponse<Buffer>[] blocked = new HttpResponse[1];
    String log = stderrOf(() -> blocked[0] = guessUntilThrottled(server, statuses));
    // a refill only adds tries, so at least the burst is answered 403 before the first 429
    assertThat(statuses.subList(0, AuthThrottle.DEFAULT_BURST)).containsOnly(403);
    assertThat(blocked[0]).as("a 429 within %d guesses: %s", ENOUGH, statuses).isNotNull();
    assertThat(blocked[0].bodyAsJsonObject().getString("error")).contains("Too many failed authentication attempts");
    long retryAfter = Long.parseLong(blocked[0].getHeader("Retry-After"));
    assertThat(retryAfter).isBetween(1L, TimeUnit.MILLISECONDS.toSeconds(AuthThrottle.DEFAULT_REFILL_MS));

    // while locked out, wrong credentials of every kind get 429; requests without credentials pass
    assertThat(server.post("/api/v1/session", new JsonObject().put("token", "wrong")).statusCode()).isEqualTo(429);
    assertThat(server.post("/api/v1/agents/x/heartbeat", "wrong", new JsonObject()).statusCode()).isEqualTo(429);
    assertThat(server.get("/api/v1/health").statusCode()).isEqualTo(200);

    assertThat(log).contains("127.0.0.1").contains("GET /api/v1/agents").contains("Invalid token");
    assertThat(log).doesNotContain("guess-number-");
  }

  @Test
  void validCredentialsPassWhileTheirAddressIsLockedOut() {
    TestServer server = servers.start();
    String agentToken = server.post("/api/v1/agents", TOKEN, new JsonObject().put("name", "shared-host"))
        .bodyAsJsonObject().getString("token");
    WebClient agent = server.agentClient("shared-host");
    HttpResponse<Buffer> registered = TestServer.send(agent, HttpMethod.POST, "/api/v1/agents/register", agentToken,
        new JsonObject().put("name", "shared-host").put("hostname", "shared-host.lab"));
    assertThat(registered.statusCode()).isEqualTo(201);
    String id = registered.bodyAsJsonObject().getString("agent_id");

    // someone on the same address guesses until it is locked out
    assertThat(guessUntilThrottled(server, new ArrayList<>())).isNotNull();
    assertThat(server.get("/api/v1/agents", "still-guessing").statusCode()).isEqualTo(429);

    // the agent's heartbeat and results, the operator's token and a login with it all pass
    assertThat(TestServer.send(agent, HttpMethod.POST, "/api/v1/agents/" + id + "/heartbeat", agentToken,
        new JsonObject().put("status", "idle")).statusCode()).isEqualTo(200);
    assertThat(TestServer.send(agent, HttpMethod.POST, "/api/v1/agents/register", agentToken,
        new JsonObject().put("name", "shared-host").put("hostname", "shared-host.lab")).statusCode()).isEqualTo(201);
    assertThat(server.get("/api/v1/quicktest?agent_id=" + id, agentToken).statusCode()).isEqualTo(200);
    assertThat(server.get("/api/v1/agents", TOKEN).statusCode()).isEqualTo(200);
    assertThat(server.post("/api/v1/session", new JsonObject().put("token", TOKEN)).statusCode()).isEqualTo(200);
    assertThat(loginForm(server.clientNotFollowingRedirects(), TOKEN).statusCode()).isEqualTo(302);
    // and the address is still locked out for the next guess
    assertThat(server.get("/api/v1/agents", "guess-again").statusCode()).isEqualTo(429);
  }

  @Test
  void aLockOutIsLoggedOnceWhenItBeginsAndOnceWhenItEndsAndCountedInTheMetrics() {
    TestServer server = servers.start(new TestServer.Options().authToken(TOKEN).env("SVC_AUTH_MAX_FAILURES", "2"));
    int refused = 5;
    String log = stderrOf(written -> {
      for (int i = 0; i < 2 + refused; i++) {
        server.get("/api/v1/agents", "guess-" + i);
      }
      // the end is logged by a timer once the address earned a try: one every 6 s
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline && !written.get().contains("lock-out of 127.0.0.1 ended")) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
      }
    });
    String metrics = server.get("/api/v1/metrics", TOKEN).bodyAsString();
    assertThat(metrics).contains("svc_auth_failures_total " + (2 + refused)).contains("svc_auth_lockouts_total 1")
        .contains("svc_auth_throttled_total " + refused).contains("svc_auth_locked_addresses 0")
        .contains("# TYPE svc_auth_throttled_total counter");
    assertThat(log.lines().filter(l -> l.contains("127.0.0.1 locked out after 2 refused credentials"))).hasSize(1);
    assertThat(log.lines().filter(l -> l.contains("lock-out of 127.0.0.1 ended"))).singleElement().asString()
        .contains(refused + " requests were refused with 429");
    // the 429s themselves are not logged one by one
    assertThat(log.lines().filter(l -> l.contains("Authentication refused"))).hasSize(2);
    // the metrics are the operator's: not for anyone
    assertThat(server.get("/api/v1/metrics").statusCode()).isEqualTo(401);
  }

  @Test
  void wrongLoginsAreThrottledLikeWrongBearerTokens() {
    TestServer server = servers.start();
    int status = 0;
    for (int i = 0; i < ENOUGH && status != 429; i++) {
      status = server.post("/api/v1/session", new JsonObject().put("token", "login-guess-" + i)).statusCode();
    }
    assertThat(status).isEqualTo(429);
    HttpResponse<Buffer> form = loginForm(server.client(), "wrong");
    assertThat(form.statusCode()).isEqualTo(429);
    assertThat(form.getHeader("Retry-After")).isNotNull();
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
  void aLockOutBeginsWithTheFailureThatEmptiesTheBucketAndEndsWhenATryIsEarned() {
    AtomicLong now = new AtomicLong();
    AuthThrottle throttle = new AuthThrottle(2, 1_000, 100, now::get);
    assertThat(throttle.failure("10.0.0.1")).isFalse();
    assertThat(throttle.failure("10.0.0.1")).as("the second of two locks it out").isTrue();
    assertThat(throttle.failure("10.0.0.1")).as("already locked out").isFalse();
    throttle.throttled("10.0.0.1");
    throttle.throttled("10.0.0.1");
    assertThat(throttle.counts()).isEqualTo(new AuthThrottle.Counts(3, 1, 2, 1));
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
    assertThat(throttle.takeEnded()).isEmpty();
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
    assertThat(throttle.takeEnded()).containsExactly(new AuthThrottle.Ended("10.0.0.1", 1_000, 2));
    assertThat(throttle.takeEnded()).as("each end once").isEmpty();
    assertThat(throttle.counts().lockedNow()).isZero();
  }

  @Test
  void anIpv6ClientIsCountedByItsSlash64() {
    assertThat(AuthThrottle.key("2001:db8:1:2:aaaa::1")).isEqualTo(AuthThrottle.key("2001:db8:1:2:bbbb::2"));
    assertThat(AuthThrottle.key("2001:db8:1:2::1")).isNotEqualTo(AuthThrottle.key("2001:db8:1:3::1"));
    assertThat(AuthThrottle.key("::ffff:192.0.2.7")).isEqualTo("192.0.2.7");
    assertThat(AuthThrottle.key("192.0.2.7")).isEqualTo("192.0.2.7");
  }
}
