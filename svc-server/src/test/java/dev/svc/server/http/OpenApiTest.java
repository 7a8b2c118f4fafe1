package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.SvcVersion;
import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps /api/v1/openapi.json true to the router: every route is described, every described
 * operation exists, errors are documented as the JSON Error object.
 */
class OpenApiTest {

  private static final String PREFIX = "/api/v1";
  private static final Set<String> HTTP_METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options",
      "trace");
  private static final String ERROR_SCHEMA = "#/components/schemas/Error";
  /** Operations that cannot answer a 4xx of their own. */
  private static final Set<String> WITHOUT_ERRORS = Set.of(
      "get /api/v1/health",
      "get /api/v1/version",
      "get /api/v1/openapi.json",
      "get /api/v1/session",
      "delete /api/v1/session");

  @TempDir
  Path home;

  private TestServer server;
  private JsonObject document;

  @BeforeEach
  void start() {
    server = TestServer.start(home);
    HttpResponse<Buffer> response = server.get(PREFIX + "/openapi.json");
    assertThat(response.statusCode()).isEqualTo(200);
    document = response.bodyAsJsonObject();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void openApiDocumentIsServedAsJson() {
    HttpResponse<Buffer> response = server.get(PREFIX + "/openapi.json");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).startsWith("application/json");
    JsonObject json = response.bodyAsJsonObject();
    assertThat(json.getString("openapi")).startsWith("3.");
    assertThat(json.getJsonObject("info").getString("title")).isEqualTo("svc API");
    assertThat(json.getJsonObject("paths")).isNotNull();
    assertThat(json.getJsonObject("paths").isEmpty()).isFalse();
  }

  @Test
  void documentVersionIsThePackageVersion() {
    assertThat(document.getJsonObject("info").getString("version"))
        .as("info.version of openapi.json must be bumped with each release")
        .isEqualTo(SvcVersion.version());
  }

  @Test
  void everyRouteIsDescribed() {
    Set<String> described = describedOperations();
    List<String> missing = new ArrayList<>();
    for (String route : routedOperations()) {
      if (!described.contains(route)) {
        missing.add(route);
      }
    }

    assertThat(missing).as("routes missing from openapi.json:%n  %s", String.join("\n  ", missing)).isEmpty();
  }

  @Test
  void everyDescribedOperationExists() {
    Set<String> routed = routedOperations();
    List<String> unknown = new ArrayList<>();
    for (String operation : describedOperations()) {
      if (!routed.contains(operation)) {
        unknown.add(operation);
      }
    }

    assertThat(unknown).as("operations in openapi.json that the router does not have:%n  %s",
        String.join("\n  ", unknown)).isEmpty();
  }

  @Test
  void everyOperationDocumentsItsErrorsAsJson() {
    List<String> problems = new ArrayList<>();
    forEachOperation((key, operation) -> {
      if (WITHOUT_ERRORS.contains(key)) {
        return;
      }
      JsonObject responses = operation.getJsonObject("responses", new JsonObject());
      boolean documented = responses.fieldNames().stream()
          .filter(code -> code.matches("4\\d\\d"))
          .anyMatch(code -> refersToError(responses.getJsonObject(code)));
      if (!documented) {
        problems.add(key);
      }
    });
    List<String> dangling = new ArrayList<>();
    forEachOperation((key, operation) -> {
      JsonObject responses = operation.getJsonObject("responses", new JsonObject());
      for (String code : responses.fieldNames()) {
        if (resolve(responses.getJsonObject(code)) == null) {
          dangling.add(key + " " + code);
        }
      }
    });

    assertThat(problems).as("operations without a 4xx response using the Error schema:%n  %s",
        String.join("\n  ", problems)).isEmpty();
    assertThat(dangling).as("responses whose $ref does not resolve:%n  %s", String.join("\n  ", dangling)).isEmpty();
  }

  @Test
  void operationIdsAreUnique() {
    Map<String, List<String>> byId = new HashMap<>();
    List<String> withoutId = new ArrayList<>();
    forEachOperation((key, operation) -> {
      String id = operation.getString("operationId");
      if (id == null || id.isBlank()) {
        withoutId.add(key);
      } else {
        byId.computeIfAbsent(id, k -> new ArrayList<>()).add(key);
      }
    });
    List<String> duplicates = new ArrayList<>();
    byId.forEach((id, keys) -> {
      if (keys.size() > 1) {
        duplicates.add(id + " " + keys);
      }
    });

    assertThat(withoutId).as("operations without an operationId").isEmpty();
    assertThat(duplicates).as("operationIds used more than once").isEmpty();
  }

  // --- helpers ---

  /** The router's routes under /api/v1 as "method path", lower-case method, no trailing slash. */
  private Set<String> routedOperations() {
    Set<String> out = new TreeSet<>();
    for (String route : server.running().routes()) {
      int space = route.indexOf(' ');
      String method = route.substring(0, space).toLowerCase(Locale.ROOT);
      String path = normalise(route.substring(space + 1).trim());
      if (path.equals(PREFIX) || path.startsWith(PREFIX + "/")) {
        out.add(method + " " + path);
      }
    }
    return out;
  }

  /** The document's operations as "method path". */
  private Set<String> describedOperations() {
    Set<String> out = new TreeSet<>();
    forEachOperation((key, operation) -> out.add(key));
    return out;
  }

  private void forEachOperation(java.util.function.BiConsumer<String, JsonObject> action) {
    JsonObject paths = document.getJsonObject("paths");
    for (String path : new TreeSet<>(paths.fieldNames())) {
      JsonObject item = paths.getJsonObject(path);
      for (String method : new TreeSet<>(item.fieldNames())) {
        if (HTTP_METHODS.contains(method)) {
          action.accept(method + " " + normalise(path), item.getJsonObject(method));
        }
      }
    }
  }

  private static String normalise(String path) {
    String p = path;
    while (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }

  /** A response object with its $ref (to #/components/responses/…) followed; null when it does not resolve. */
  private JsonObject resolve(JsonObject response) {
    JsonObject current = response;
    for (int hops = 0; current != null && current.containsKey("$ref") && hops < 5; hops++) {
      String ref = current.getString("$ref");
      String prefix = "#/components/responses/";
      if (!ref.startsWith(prefix)) {
        return null;
      }
      current = document.getJsonObject("components").getJsonObject("responses", new JsonObject())
          .getJsonObject(ref.substring(prefix.length()));
    }
    return current;
  }

  private boolean refersToError(JsonObject response) {
    JsonObject resolved = resolve(response);
    if (resolved == null) {
      return false;
    }
    JsonObject json = resolved.getJsonObject("content", new JsonObject()).getJsonObject("application/json");
    if (json == null || json.getJsonObject("schema") == null) {
      return false;
    }
    return ERROR_SCHEMA.equals(json.getJsonObject("schema").getString("$ref"))
        && document.getJsonObject("components").getJsonObject("schemas").containsKey("Error");
  }
}
