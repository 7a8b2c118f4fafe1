package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Hostile JSON bodies to the REST API of a real in-process server ({@link FuzzedServer}): raw bytes as
 * the body of every {@code /api/v1} route that takes one. Whatever comes in, the server answers: never
 * a 5xx, every refusal a JSON {@code {"error": "<sentence>"}}, every accepted result readable again.
 *
 * <p>An input is {@code "METHOD /path\n"} and the body; a first line that names no route picks one by
 * its hash, so the fuzzer reaches every route, and a route added later is fuzzed without touching this
 * class. Regression mode runs the inputs under {@code ApiFuzzTestInputs/}.
 */
class ApiFuzzTest {

  /** Routes that read no body: sending them one tests nothing more than BadInputTest does. */
  private static final Set<String> NO_BODY = Set.of(
      "POST /api/v1/agents/{id}/rotate-token",
      "POST /api/v1/quicktest/{id}/cancel",
      "POST /api/v1/campaigns/{id}/launch",
      "POST /api/v1/campaigns/{id}/cancel");

  private static FuzzedServer fuzzed;
  private static List<String> routes;

  @BeforeAll
  static void start() throws IOException {
    fuzzed = FuzzedServer.start();
    routes = fuzzed.server.running().routes().stream()
        .filter(r -> r.startsWith("POST /api/v1/") || r.startsWith("PUT /api/v1/") || r.startsWith("PATCH /api/v1/"))
        .filter(r -> !NO_BODY.contains(r)).distinct().sorted().toList();
    assertThat(routes).as("the body routes found in the router").hasSizeGreaterThan(10);
  }

  @AfterAll
  static void stop() throws IOException {
    if (fuzzed != null) {
      fuzzed.close();
    }
  }

  @FuzzTest
  void bodies(byte[] input) {
    int newline = indexOf(input, (byte) '\n');
    String first = newline < 0 ? "" : new String(input, 0, newline, StandardCharsets.ISO_8859_1).trim();
    String route = routes.contains(first) ? first
        : routes.get(Math.floorMod(newline < 0 ? Arrays.hashCode(input) : first.hashCode(), routes.size()));
    byte[] body = newline < 0 ? input : Arrays.copyOfRange(input, newline + 1, input.length);
    if (changesResultsDir(route, body)) {
      return; // a results directory elsewhere is indexed at once: real, but outside the test's folder
    }
    int space = route.indexOf(' ');
    HttpMethod method = HttpMethod.valueOf(route.substring(0, space));
    String uri = withIds(route.substring(space + 1));
    BadInputHttp.Reply reply = fuzzed.http.send(method, uri, Buffer.buffer(body), null);
    String what = route + " with " + excerpt(body);
    FuzzedServer.assertContract(reply, what);
    if (uri.endsWith("/results") && reply.status() / 100 == 2) {
      String resultId = new JsonObject(reply.body()).getString("result_id");
      if (resultId != null) {
        BadInputHttp.Reply stored = fuzzed.http.send(HttpMethod.GET, "/api/v1/results/" + resultId, null, null);
        assertThat(stored.status()).as("the result %s stored from %s", resultId, what).isEqualTo(200);
        assertThat(new JsonObject(stored.body()).encode()).isNotEmpty();
      }
    }
  }

  private static boolean changesResultsDir(String route, byte[] body) {
    if (!route.equals("PUT /api/v1/settings")) {
      return false;
    }
    try {
      return new JsonObject(Buffer.buffer(body)).containsKey("results_dir");
    } catch (RuntimeException notAnObject) {
      return false;
    }
  }

  private static String withIds(String path) {
    String id = path.startsWith("/api/v1/agents/") ? fuzzed.agentId
        : path.startsWith("/api/v1/quicktest/") ? fuzzed.testId
        : path.startsWith("/api/v1/campaigns/") ? fuzzed.campaignId : "0123456789abcdef";
    return path.replace("{id}", id);
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static String excerpt(byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8);
    return text.length() > 300 ? text.substring(0, 300) + "..." : text;
  }
}
