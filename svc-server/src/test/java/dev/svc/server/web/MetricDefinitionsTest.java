package dev.svc.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.measure.ClientCpu;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.bench.measure.RunMetrics;
import dev.svc.bench.measure.Slo;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The result pages label every figure a benchmark writes: none falls back to its bare key. */
class MetricDefinitionsTest {

  private static final long MS = 1_000_000;

  @Test
  void everyFigureOfAMeasurementHasADefinition() {
    // open loop (scheduled), so that the schedule's figures are written too
    RequestRecord first = new RequestRecord(0, 1 * MS, new long[] {10 * MS, 20 * MS, 30 * MS}, 35 * MS, 3, 12,
        RequestRecord.TokenSource.USAGE, "abc", null);
    RequestRecord second = new RequestRecord(5 * MS, 6 * MS, new long[] {16 * MS, 30 * MS}, 31 * MS, 2, 10,
        RequestRecord.TokenSource.USAGE, "ab", null, null, RequestRecord.UNKNOWN, 5 * MS, 5 * MS + 400_000);
    RequestRecord failed = new RequestRecord(8 * MS, 9 * MS, new long[0], 12 * MS, 0, 0,
        RequestRecord.TokenSource.USAGE, "", "connection reset");

    JsonObject metrics = RunMetrics.of(List.of(first, second, failed), Slo.parse("ttft_ms=500,tpot_ms=30"))
        .put(MetricKeys.CLIENT_CPU, new ClientCpu(10, 2, 2, 0.5, 1.0, 3.0, 0, null).toJson());

    assertThat(metrics.fieldNames()).contains("decode_rate_tps", "goodput", "queueing_delay_ms", "connect_ms", "client_cpu")
        .allSatisfy(key -> assertThat(MetricDefinitions.of(key)).as("the definition of %s", key).isPresent());
  }
}
