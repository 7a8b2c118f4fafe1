package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import dev.svc.server.store.StoredResult;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A stored result row with its metrics.json parsed once: the indexed columns, the document (empty
 * when the stored text is unreadable) and its benchmarks.
 *
 * @param data the stored metrics.json; an empty object when it is missing or not a JSON object
 * @param readable whether the stored text was a JSON object
 */
record ResultDocument(String id, String model, String engine, String suite, String timestamp, boolean passed,
    String testId, String agentId, String sourcePath, String indexedAt, JsonObject data, boolean readable,
    List<BenchmarkMetrics> benchmarks) {

  static ResultDocument of(StoredResult row) {
    JsonObject data = row.dataObject();
    boolean readable = data != null;
    return of(row, readable ? data : new JsonObject(), readable);
  }

  /**
   * A list row: its stored summary ({@code dev.svc.server.results.ResultSummary}, which has the shape of a
   * metrics.json with only the headline metrics) stands in for the document. A row stored before summaries
   * existed has none yet and shows no metrics.
   */
  static ResultDocument summaryOf(StoredResult row) {
    JsonObject summary = row.summaryObject();
    boolean readable = summary == null || !Boolean.FALSE.equals(summary.getValue("readable"));
    return of(row, summary == null ? new JsonObject() : summary, readable);
  }

  private static ResultDocument of(StoredResult row, JsonObject doc, boolean readable) {
    return new ResultDocument(row.id(), row.model(), row.engine(), row.suiteName(), row.timestamp(), row.passed(),
        row.testId(), row.agentId(), row.sourcePath(), row.createdAt(), doc, readable, BenchmarkMetrics.allOf(doc));
  }

  /** The same result without its document, keeping its benchmarks and flags: what a comparison holds of each result. */
  ResultDocument compact() {
    JsonObject flags = new JsonObject().put(MetricKeys.SIMULATED, simulated());
    if (data.getValue(MetricKeys.VALID) instanceof Boolean valid) {
      flags.put(MetricKeys.VALID, valid);
    }
    return new ResultDocument(id, model, engine, suite, timestamp, passed, testId, agentId, sourcePath, indexedAt,
        flags, readable, benchmarks);
  }

  /** Made up by the test-agent simulator ({@code "simulated": true}), never a measurement. */
  boolean simulated() {
    return Boolean.TRUE.equals(data.getValue(MetricKeys.SIMULATED));
  }

  /** False only when the document says the run is not valid (client was the bottleneck). */
  boolean invalid() {
    return Boolean.FALSE.equals(data.getValue(MetricKeys.VALID));
  }

  /** The document's text value of a key, or null. */
  String text(String key) {
    Object v = data.getValue(key);
    return v instanceof String || v instanceof Number || v instanceof Boolean ? v.toString() : null;
  }

  /** A short name for charts and headers: the model's last path segment and the engine. */
  String shortLabel() {
    String m = model == null ? "?" : model.replaceAll("/+$", "");
    int slash = m.lastIndexOf('/');
    return (slash >= 0 && slash < m.length() - 1 ? m.substring(slash + 1) : m) + " · " + engine;
  }

}
