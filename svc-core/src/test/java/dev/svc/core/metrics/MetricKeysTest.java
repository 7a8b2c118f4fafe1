package dev.svc.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The key lists follow docs/metrics.md, "The files of a run". */
class MetricKeysTest {

  @Test
  void topLevelAndResultKeysAreThoseOfTheSpec() {
    assertThat(MetricKeys.TOP_LEVEL).containsExactly("svc_version", "suite_name", "timestamp", "engine",
        "engine_image", "model", "passed", "total_benchmarks", "passed_count", "failed_count", "total_time_seconds",
        "valid", "results", "system_info");
    assertThat(MetricKeys.RESULT).containsExactly("test_name", "test_version", "run_number", "passed", "metrics",
        "load", "errors", "timestamp");
    assertThat(MetricKeys.LOAD_KEYS).containsExactly("mode", "seed", "warmup_requests");
    assertThat(MetricKeys.SYSTEM_INFO_KEYS).containsExactly("gpu", "cpu", "ram_gb", "cuda_version", "driver_version",
        "os", "environment_type", "fingerprint");
    assertThat(MetricKeys.TOP_LEVEL).doesNotContain(MetricKeys.SIMULATED);
  }

  @Test
  void metricsDependOnTheBenchmark() {
    assertThat(MetricKeys.metricsOf("throughput")).contains(MetricKeys.PERFORMANCE);
    assertThat(MetricKeys.metricsOf("memory_usage")).contains(MetricKeys.PERFORMANCE);
    assertThat(MetricKeys.metricsOf("warmup_analysis")).contains(MetricKeys.WARMUP);
    assertThat(MetricKeys.WARMUP).containsAll(MetricKeys.PERFORMANCE).contains("stabilization_iteration");
    assertThat(MetricKeys.metricsOf("gsm8k")).contains(List.of("accuracy", "correct", "total"));
    assertThat(MetricKeys.metricsOf("nope")).isEmpty();
    assertThat(MetricKeys.PERFORMANCE).containsAll(MetricKeys.DISTRIBUTIONS).contains("gpu_memory");
    assertThat(MetricKeys.STATISTICS).containsAll(MetricKeys.ASCENDING).containsAll(MetricKeys.PERCENTILES);
  }
}
