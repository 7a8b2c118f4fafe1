package dev.svc.engines.lifecycle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.svc.engines.HealthSuccess;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Polls an engine's health endpoint until it answers as ready, backing off as the policy says.
 * Anything but ready (503 while loading, another status, no answer yet) is retried; an engine
 * (container or process) that stops running ends the wait at once.
 */
final class HealthCheck {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long MIN_PROBE_MS = 250;
  private static final long MAX_PROBE_MS = 5_000;

  /** How the wait ended when the engine never became ready. */
  sealed interface Failure permits TimedOut, Exited {
    /** One sentence for the error message. */
    String describe(String engine, String instance, HealthPolicy policy, URI url);
  }

  /** The timeout passed; {@code lastAnswer} is what the endpoint said last. */
  record TimedOut(String lastAnswer, int attempts) implements Failure {
    @Override
    public String describe(String engine, String instance, HealthPolicy policy, URI url) {
      return engine + " did not become ready within " + seconds(policy.timeout().toNanos()) + " (" + attempts
          + " check(s) of " + url + ", last answer: " + lastAnswer + ")";
    }
  }

  /** The engine stopped; {@code state} describes how. */
  record Exited(String state) implements Failure {
    @Override
    public String describe(String engine, String instance, HealthPolicy policy, URI url) {
      return engine + "'s " + instance + " " + state + " before it became ready";
    }
  }

  private final HttpClient http;
  private final HealthPolicy policy;

  HealthCheck(HttpClient http, HealthPolicy policy) {
    this.http = http;
    this.policy = policy;
  }

  /**
   * Waits for the engine.
   *
   * @param exitState empty while the engine runs, else how it ended
   * @return empty when the engine became ready, else why it did not
   */
  Optional<Failure> await(URI url, HealthSuccess rule, Supplier<Optional<String>> exitState, LogSink sink)
      throws InterruptedException {
    String tag = LifecycleStage.HEALTH.tag() + " ";
    long start = System.nanoTime();
    long deadline = start + policy.timeout().toNanos();
    Duration interval = policy.initialInterval();
    int attempts = 0;
    String answer = "no answer yet";
    while (true) {
      attempts++;
      Probe probe = probe(url, rule, deadline);
      answer = probe.answer();
      if (probe.ready()) {
        sink.log(tag + url + " answered " + answer + " after " + attempts + " check(s), "
            + seconds(System.nanoTime() - start) + ": the engine is ready");
        return Optional.empty();
      }
      Optional<String> exited = exitState.get();
      if (exited.isPresent()) {
        return Optional.of(new Exited(exited.get()));
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return Optional.of(new TimedOut(answer, attempts));
      }
      long sleep = Math.min(interval.toNanos(), remaining);
      sink.log(tag + url + ": " + answer + "; checking again in " + seconds(sleep));
      Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
      interval = policy.next(interval);
    }
  }

  private record Probe(boolean ready, String answer) {}

  private Probe probe(URI url, HealthSuccess rule, long deadline) throws InterruptedException {
    // a check at the deadline still gets a moment to answer, so its answer is a real one
    long timeoutMs = Math.max(MIN_PROBE_MS, Math.min(MAX_PROBE_MS, (deadline - System.nanoTime()) / 1_000_000));
    HttpRequest request = HttpRequest.newBuilder(url)
        .timeout(Duration.ofMillis(timeoutMs))
        .GET()
        .build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException e) {
      return new Probe(false, "not listening yet (connection refused)");
    } catch (HttpTimeoutException e) {
      return new Probe(false, "no answer within " + seconds(timeoutMs * 1_000_000));
    } catch (IOException e) {
      return new Probe(false, "no answer (" + DockerClients.rootMessage(e) + ")");
    }
    int status = response.statusCode();
    if (status == 503) {
      return new Probe(false, "503 (still loading)");
    }
    if (status != 200) {
      return new Probe(false, Integer.toString(status));
    }
    if (rule == HealthSuccess.STATUS_200_WITH_MODEL_LIST && !hasModels(response.body())) {
      return new Probe(false, "200 without any model listed yet");
    }
    return new Probe(true, "200");
  }

  private static boolean hasModels(String body) {
    try {
      JsonNode models = JSON.readTree(body).get("models");
      return models != null && models.isArray() && !models.isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  /** A duration for people: milliseconds under a second, else seconds with one decimal. */
  static String seconds(long nanos) {
    if (nanos < 1_000_000_000L) {
      return (nanos / 1_000_000) + " ms";
    }
    return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
  }
}
