package dev.svc.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.hardware.GpuInfo;
import dev.svc.bench.hardware.MemoryTrace;
import dev.svc.bench.hardware.MemoryTracker;
import dev.svc.bench.hardware.NvidiaSmi;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * GPU memory tracking through nvidia-smi's query interface. No GPU exists on this machine, so a
 * script prints what nvidia-smi prints; the code under test runs it as it runs the real one.
 */
class MemoryTrackingTest {

  private static String fake(String name) throws Exception {
    return Path.of(MemoryTrackingTest.class.getResource("/fake-nvidia-smi/" + name).toURI()).toString();
  }

  @Test
  void gpusAndTheCudaVersionAreRead() throws Exception {
    NvidiaSmi smi = new NvidiaSmi(fake("two-gpus"));
    List<GpuInfo> gpus = smi.gpus().gpus();
    assertThat(gpus).hasSize(2);
    assertThat(gpus.get(0).name()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(gpus.get(0).memoryTotalMb()).isEqualTo(81559.0);
    assertThat(gpus.get(1).memoryUsedMb()).isEqualTo(2048.0);
    assertThat(gpus.get(0).computeCapability()).containsExactly(9, 0);
    assertThat(gpus.get(0).driverVersion()).isEqualTo("550.54.15");
    assertThat(smi.cudaVersion()).contains("12.4");
  }

  @Test
  void samplesEveryHundredMillisecondsSummingAllGpus() throws Exception {
    MemoryTrace trace = waitForSamples(MemoryTracker.detect(new NvidiaSmi(fake("two-gpus"))).start(), 5);
    assertThat(trace.samples().size()).isGreaterThanOrEqualTo(5);
    assertThat(trace.samples().get(0)[1]).isEqualTo(1500.0);
    assertThat(trace.samples().get(1)[1]).isEqualTo(2500.0);
    JsonObject json = trace.toJson();
    double peak = json.getDouble("peak_memory_mb");
    assertThat(peak).isEqualTo(trace.samples().get(trace.samples().size() - 1)[1]);
    assertThat(json.getDouble("vram_utilization_pct")).isEqualTo(Math.round(peak / (2 * 81559.0) * 1000) / 10.0);
    JsonArray points = json.getJsonArray("samples");
    // the fake prints a tick every 100 ms: the median spacing of the stamps, which one late read
    // (a busy machine, the reader thread's start) cannot move, as the first spacing alone could
    long[] spacing = new long[points.size() - 1];
    for (int i = 1; i < points.size(); i++) {
      spacing[i - 1] = points.getJsonArray(i).getLong(0) - points.getJsonArray(i - 1).getLong(0);
    }
    Arrays.sort(spacing);
    assertThat(spacing[spacing.length / 2]).as("median spacing of %s", Arrays.toString(spacing)).isBetween(50L, 400L);
    assertThat(json.getString("source")).isEqualTo("nvidia-smi");
  }

  @Test
  void withoutAGpuTheFiguresAreNullWithTheReason() {
    MemoryTrace trace = MemoryTracker.detect(new NvidiaSmi("/nonexistent/nvidia-smi")).start().stop();
    JsonObject json = trace.toJson();
    assertThat(json.getValue("peak_memory_mb")).isNull();
    assertThat(json.containsKey("peak_memory_mb")).isTrue();
    assertThat(json.getValue("avg_memory_mb")).isNull();
    assertThat(json.getString("reason")).contains("no GPU", "not installed");
  }

  @Test
  void unifiedMemoryHostsFallBackToSystemMemory() throws Exception {
    MemoryTracker.Tracking tracking = MemoryTracker.detect(new NvidiaSmi(fake("unified"))).start();
    MemoryTrace trace = waitForSamples(tracking, 3);
    assertThat(trace.source()).isEqualTo("system");
    assertThat(trace.reason()).contains("unified memory");
    assertThat(trace.totalMb()).isGreaterThan(0.0);
    assertThat(trace.samples()).allSatisfy(s -> assertThat(s[1]).isBetween(1.0, trace.totalMb()));
  }

  /** Polls until the tracker has taken {@code count} samples (10 s at most), then stops it. */
  private static MemoryTrace waitForSamples(MemoryTracker.Tracking tracking, int count) {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (tracking.count() < count && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    return tracking.stop();
  }
}
