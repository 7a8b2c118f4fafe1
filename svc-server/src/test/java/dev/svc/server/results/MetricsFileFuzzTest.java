package dev.svc.server.results;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.svc.core.Timestamps;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Hostile metrics.json files in the results directory, read as the server's indexer reads them: each
 * file is either one result (its identifying fields filled in, its timestamp canonical, its document
 * encodable again, its summary holding finite numbers only) or one problem sentence; nothing throws.
 * The {@code result_data} of an agent's submission takes the HTTP path of {@code ApiFuzzTest}.
 * Regression mode runs the inputs under {@code MetricsFileFuzzTestInputs/}.
 */
class MetricsFileFuzzTest {

  private static Path root;
  private static Path file;

  @BeforeAll
  static void folder() throws IOException {
    root = Files.createTempDirectory("svc-metrics-fuzz-");
    file = Files.createDirectories(root.resolve("run-1")).resolve(MetricsFileFinder.FILE_NAME);
  }

  @AfterAll
  static void remove() throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @FuzzTest
  void metricsFile(byte[] input) {
    try {
      Files.write(file, input);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ResultsScan scan = new ResultsScanner().scan(List.of(root));
    assertThat(scan.results().size() + scan.problems().size()).as("one result or one problem").isEqualTo(1);
    if (!scan.problems().isEmpty()) {
      assertThat(scan.problems().get(0)).startsWith(realFile() + ": ").endsWith(".");
      return;
    }
    ScannedResult result = scan.results().get(0);
    for (String field : new String[] {result.model(), result.engine(), result.suiteName()}) {
      assertThat(field).isNotBlank();
    }
    assertThat(Timestamps.normalize(result.timestamp())).as("canonical timestamp").contains(result.timestamp());
    JsonObject again = new JsonObject(result.data().encode());
    assertThat(again.fieldNames()).isEqualTo(result.data().fieldNames());
    assertFinite(ResultSummary.of(result.data()));
  }

  private static Path realFile() {
    try {
      return file.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void assertFinite(Object value) {
    if (value instanceof Number n) {
      assertThat(Double.isFinite(n.doubleValue())).as("a summary number: %s", n).isTrue();
    } else if (value instanceof JsonObject o) {
      o.forEach(e -> assertFinite(e.getValue()));
    } else if (value instanceof JsonArray a) {
      a.forEach(MetricsFileFuzzTest::assertFinite);
    }
  }
}
