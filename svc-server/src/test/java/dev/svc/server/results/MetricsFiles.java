package dev.svc.server.results;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** metrics.json documents in the current layout, and writing them where a scan will find them. */
public final class MetricsFiles {

  private MetricsFiles() {
  }

  public static JsonObject current(String model, String timestamp) {
    return current(model, timestamp, 103.2);
  }

  public static JsonObject current(String model, String timestamp, double avgTps) {
    return new JsonObject()
        .put("svc_version", "1.7.0")
        .put("suite_name", "quick")
        .put("timestamp", timestamp)
        .put("engine", "vllm")
        .put("model", model)
        .put("passed", true)
        .put("total_benchmarks", 1)
        .put("results", new JsonArray().add(new JsonObject()
            .put("test_name", "throughput")
            .put("passed", true)
            .put("metrics", new JsonObject().put("avg_tps", avgTps))
            .put("errors", new JsonArray())));
  }

  public static Path write(Path file, JsonObject data) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, data.encode());
    return file;
  }
}
