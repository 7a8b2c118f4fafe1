package dev.svc.bench.perf;

import dev.svc.core.metrics.DistributionSummary;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.stream.DoubleStream;

/**
 * What {@link ClientComparison} compares of one client's run, read from that client's per-request
 * lines: per request, TTFT minus the engine's own {@code prompt_ms} (what lies outside the engine's
 * prompt pass: sending, the kernel, the engine's HTTP thread, the client's reading), and the
 * connection times of the requests that opened one. Failed requests and those without a
 * {@code prompt_ms} are counted, not measured.
 */
record ClientLatencies(double[] overheadMs, double[] connectMs, int errors, int withoutPromptMs) {

  /** From svc run's {@code requests.jsonl.gz} lines (docs/metrics.md): TTFT is the first chunk's time minus t_send. */
  static ClientLatencies ofSvc(List<JsonObject> lines) {
    DoubleStream.Builder overhead = DoubleStream.builder();
    DoubleStream.Builder connect = DoubleStream.builder();
    int errors = 0;
    int withoutPrompt = 0;
    for (JsonObject line : lines) {
      Double start = line.getDouble("t_connect_start_ms");
      Double connected = line.getDouble("t_connected_ms");
      if (start != null && connected != null) {
        connect.add(connected - start);
      }
      JsonArray chunks = line.getJsonArray("chunks_ms");
      if (line.getString("error") != null || chunks == null || chunks.isEmpty()) {
        errors++;
        continue;
      }
      JsonObject server = line.getJsonObject("server_timings");
      Double prompt = server == null ? null : server.getDouble("prompt_ms");
      if (prompt == null) {
        withoutPrompt++;
        continue;
      }
      overhead.add(chunks.getDouble(0) - line.getDouble("t_send_ms") - prompt);
    }
    return new ClientLatencies(overhead.build().toArray(), connect.build().toArray(), errors, withoutPrompt);
  }

  /** From scripts/reference-client.py's lines: TTFT is t_first_ms minus t_send_ms. */
  static ClientLatencies ofReference(List<JsonObject> lines) {
    DoubleStream.Builder overhead = DoubleStream.builder();
    DoubleStream.Builder connect = DoubleStream.builder();
    int errors = 0;
    int withoutPrompt = 0;
    for (JsonObject line : lines) {
      Double connectMs = line.getDouble("connect_ms");
      if (connectMs != null) {
        connect.add(connectMs);
      }
      Double first = line.getDouble("t_first_ms");
      if (line.getString("error") != null || first == null) {
        errors++;
        continue;
      }
      Double prompt = line.getDouble("prompt_ms");
      if (prompt == null) {
        withoutPrompt++;
        continue;
      }
      overhead.add(first - line.getDouble("t_send_ms") - prompt);
    }
    return new ClientLatencies(overhead.build().toArray(), connect.build().toArray(), errors, withoutPrompt);
  }

  /** TTFT − prompt_ms over the measured requests, null when no request had both. */
  DistributionSummary overhead() {
    return overheadMs.length == 0 ? null : DistributionSummary.of(overheadMs);
  }

  /** The connection times, null when no request opened a connection. */
  DistributionSummary connect() {
    return connectMs.length == 0 ? null : DistributionSummary.of(connectMs);
  }
}
