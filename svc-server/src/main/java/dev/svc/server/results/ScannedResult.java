package dev.svc.server.results;

import dev.svc.core.Timestamps;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Instant;

/**
 * One metrics.json found on disk, with the fields the viewers sort and summarise by.
 *
 * @param path the metrics.json file
 * @param data the parsed document
 * @param timestamp canonical ISO-8601 UTC; the document's own, else the file's modification time
 */
public record ScannedResult(
    Path path,
    JsonObject data,
    String model,
    String engine,
    String suiteName,
    String timestamp,
    boolean passed) {

  /** Builds a result from a parsed document; {@code mtime} stands in for a missing timestamp. */
  public static ScannedResult fromJson(Path path, JsonObject data, Instant mtime) {
    ResultFields fields = ResultFields.extract(data);
    return new ScannedResult(
        path,
        data,
        fields.model(),
        fields.engine(),
        fields.suiteName(),
        fields.timestamp().orElseGet(() -> Timestamps.format(mtime)),
        fields.passed());
  }

  /** The benchmark output directory holding the metrics.json. */
  public Path directory() {
    Path parent = path.getParent();
    return parent == null ? path : parent;
  }
}
