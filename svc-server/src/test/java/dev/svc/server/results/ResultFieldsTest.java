package dev.svc.server.results;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ResultFieldsTest {

  @Test
  void extractsCurrentLayout() {
    ResultFields fields = ResultFields.extract(MetricsFiles.current("/models/llama",
        "2026-11-22T10:00:00.000Z"));

    assertThat(fields).isEqualTo(new ResultFields("1.7.0", "/models/llama", "vllm", "quick",
        java.util.Optional.of("2026-11-22T10:00:00.000Z"), true));
  }

  @Test
  void missingFieldsAreUnknownAndPassedFollowsTheBenchmarks() {
    JsonObject allPassed = new JsonObject().put("results", new JsonArray()
        .add(new JsonObject().put("passed", true)).add(new JsonObject().put("passed", true)));
    JsonObject oneFailed = new JsonObject().put("results", new JsonArray()
        .add(new JsonObject().put("passed", true)).add(new JsonObject().put("passed", false)));

    ResultFields fields = ResultFields.extract(allPassed);

    assertThat(fields.model()).isEqualTo("unknown");
    assertThat(fields.engine()).isEqualTo("unknown");
    assertThat(fields.suiteName()).isEqualTo("unknown");
    assertThat(fields.version()).isEqualTo("unknown");
    assertThat(fields.timestamp()).isEmpty();
    assertThat(fields.passed()).isTrue();
    assertThat(ResultFields.extract(oneFailed).passed()).isFalse();
    assertThat(ResultFields.extract(new JsonObject()).passed()).isFalse();
  }

  @Test
  void unreadableTimestampFallsBackToModificationTime() {
    JsonObject data = new JsonObject().put("timestamp", "last tuesday").put("model", "m");

    ScannedResult result = ScannedResult.fromJson(Path.of("/r/run/metrics.json"), data,
        Instant.parse("2026-11-22T10:00:00.123456Z"));

    assertThat(result.timestamp()).isEqualTo("2026-11-22T10:00:00.123Z");
    assertThat(result.directory()).isEqualTo(Path.of("/r/run"));
  }
}
