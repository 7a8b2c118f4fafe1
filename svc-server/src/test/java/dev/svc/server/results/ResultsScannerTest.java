package dev.svc.server.results;

import static dev.svc.server.results.MetricsFiles.current;
import static dev.svc.server.results.MetricsFiles.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsScannerTest {

  @TempDir
  Path temp;

  private final ResultsScanner scanner = new ResultsScanner();

  @Test
  void scannerFindsNestedMetricsFilesAndSkipsHidden() throws IOException {
    Path root = temp.resolve(".svc/results");
    Path shallow = write(root.resolve("run-a/metrics.json"), current("m-a", "2026-11-22T10:00:00Z"));
    Path deep = write(root.resolve("x/y/z/run-b/metrics.json"), current("m-b", "2026-11-21T10:00:00Z"));
    write(root.resolve(".cache/run/metrics.json"), current("hidden", "2026-11-23T10:00:00Z"));
    write(root.resolve("node_modules/pkg/metrics.json"), current("npm", "2026-11-23T10:00:00Z"));
    write(root.resolve("target/metrics.json"), current("build", "2026-11-23T10:00:00Z"));
    write(root.resolve(".git/metrics.json"), current("git", "2026-11-23T10:00:00Z"));
    write(root.resolve("run-a/summary.json"), current("other-name", "2026-11-23T10:00:00Z"));

    ResultsScan scan = scanner.scan(List.of(root, temp.resolve("missing"), root));

    assertThat(scan.results()).extracting(ScannedResult::path)
        .containsExactly(shallow.toRealPath(), deep.toRealPath());
    assertThat(scan.results()).extracting(ScannedResult::model).containsExactly("m-a", "m-b");
    assertThat(scan.problems()).isEmpty();
  }

  @Test
  void scannerStopsAtDepthTenAndDoesNotLoopThroughLinks() throws IOException {
    Path root = temp.resolve("results");
    Path atTen = write(root.resolve("1/2/3/4/5/6/7/8/9/metrics.json"), current("ten", "2026-01-01T00:00:00Z"));
    write(root.resolve("1/2/3/4/5/6/7/8/9/10/metrics.json"), current("eleven", "2026-01-01T00:00:00Z"));
    Files.createSymbolicLink(root.resolve("1/loop"), root);

    ResultsScan scan = scanner.scan(List.of(root));

    assertThat(scan.results()).extracting(ScannedResult::path).containsExactly(atTen.toRealPath());
  }

  @Test
  void scannerDeduplicatesOverlappingRootsByRealPath() throws IOException {
    Path root = temp.resolve("results");
    Path file = write(root.resolve("legacy/run/metrics.json"), current("m", "2026-01-01T00:00:00Z"));
    Path linkedRoot = Files.createSymbolicLink(temp.resolve("alias"), root.resolve("legacy"));

    ResultsScan scan = scanner.scan(List.of(root, root.resolve("legacy"), linkedRoot));

    assertThat(scan.results()).extracting(ScannedResult::path).containsExactly(file.toRealPath());
  }

  @Test
  void scannerReadsLegacyLayoutFields() throws IOException {
    JsonObject legacy = new JsonObject()
        .put("kitt_version", "0.9.3")
        .put("suite", "standard")
        .put("engine", "tgi")
        .put("model", "/models/mistral")
        .put("passed", false)
        .put("results", new JsonArray().add(new JsonObject()
            .put("test_name", "latency")
            .put("passed", false)
            .put("metrics", new JsonObject()
                .put("p50_latency_ms", 12.5).put("p99_latency_ms", 40.0).put("accuracy", 0.91))));
    Path file = write(temp.resolve("old/run/metrics.json"), legacy);
    Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2025-03-04T05:06:07.891Z")));

    ResultsScan scan = scanner.scan(List.of(temp.resolve("old")));

    assertThat(scan.results()).hasSize(1);
    ScannedResult result = scan.results().get(0);
    assertThat(result.suiteName()).isEqualTo("standard");
    assertThat(result.engine()).isEqualTo("tgi");
    assertThat(result.model()).isEqualTo("/models/mistral");
    assertThat(result.timestamp()).isEqualTo("2025-03-04T05:06:07.891Z");
    assertThat(result.passed()).isFalse();
    assertThat(result.directory()).isEqualTo(temp.resolve("old/run").toRealPath());
    assertThat(ResultFields.extract(result.data()).version()).isEqualTo("0.9.3");
    assertThat(result.data().getJsonArray("results").getJsonObject(0)
        .getJsonObject("metrics").getDouble("p99_latency_ms")).isEqualTo(40.0);
  }

  @Test
  void filesAlreadyIndexedAreLeftUnread() throws IOException {
    Path root = temp.resolve("results");
    Path known = Files.createDirectories(root.resolve("known")).resolve("metrics.json");
    Files.writeString(known, "{\"model\": \"half"); // read, it would be reported as cut short
    Path fresh = write(root.resolve("fresh/metrics.json"), current("new", "2026-11-22T10:00:00Z"));

    ResultsScan scan = scanner.scan(List.of(root), Set.of(known.toRealPath().toString()));

    assertThat(scan.results()).extracting(ScannedResult::path).containsExactly(fresh.toRealPath());
    assertThat(scan.problems()).isEmpty();
    assertThat(scanner.scan(List.of(root)).problems()).singleElement().asString().startsWith(known.toRealPath().toString());
  }

  @Test
  void scannerReportsUnparsableFilesWithoutFailing() throws IOException {
    Path root = temp.resolve("results");
    Path good = write(root.resolve("good/metrics.json"), current("ok", "2026-11-22T10:00:00Z"));
    Path broken = Files.createDirectories(root.resolve("broken")).resolve("metrics.json");
    Files.writeString(broken, "{\"model\": \"half");
    Path array = Files.createDirectories(root.resolve("array")).resolve("metrics.json");
    Files.writeString(array, "[1, 2, 3]");
    Path empty = Files.createDirectories(root.resolve("empty")).resolve("metrics.json");
    Files.writeString(empty, "");

    ResultsScan scan = scanner.scan(List.of(root));

    assertThat(scan.results()).extracting(ScannedResult::path).containsExactly(good.toRealPath());
    assertThat(scan.problems()).hasSize(3);
    assertThat(scan.problems()).anySatisfy(p -> assertThat(p)
        .startsWith(broken.toRealPath().toString()).endsWith("(cut short: an interrupted write or a full disk); not indexed."));
    assertThat(scan.problems()).anySatisfy(p -> assertThat(p)
        .startsWith(array.toRealPath().toString()).endsWith("is not a JSON object."));
    assertThat(scan.problems()).anySatisfy(p -> assertThat(p)
        .startsWith(empty.toRealPath().toString()));
  }

  @Test
  void scannerSkipsFilesNestedDeeperThanTheLimitWithAProblemLine() throws IOException {
    Path root = temp.resolve("results");
    Path good = write(root.resolve("good/metrics.json"), current("ok", "2026-11-22T10:00:00Z"));
    Path deep = Files.createDirectories(root.resolve("deep")).resolve("metrics.json");
    Files.writeString(deep, "{\"model\":\"deep\",\"x\":" + "[".repeat(850) + "]".repeat(850) + "}");

    ResultsScan scan = scanner.scan(List.of(root));

    assertThat(scan.results()).extracting(ScannedResult::path).containsExactly(good.toRealPath());
    assertThat(scan.problems()).containsExactly(deep.toRealPath() + ": is nested deeper than "
        + dev.svc.server.json.BoundedJson.MAX_DEPTH + " levels.");
  }

  @Test
  void scannerSortsNewestFirstAcrossOffsets() throws IOException {
    Path root = temp.resolve("results");
    write(root.resolve("a/metrics.json"), current("older", "2026-11-22T12:00:00+02:00"));
    write(root.resolve("b/metrics.json"), current("newer", "2026-11-22T10:30:00Z"));
    write(root.resolve("c/metrics.json"), current("oldest", "2026-11-22T09:00:00"));

    ResultsScan scan = scanner.scan(List.of(root));

    assertThat(scan.results()).extracting(ScannedResult::model)
        .containsExactly("newer", "older", "oldest");
    assertThat(scan.results()).extracting(ScannedResult::timestamp).containsExactly(
        "2026-11-22T10:30:00.000Z", "2026-11-22T10:00:00.000Z", "2026-11-22T09:00:00.000Z");
  }


}
