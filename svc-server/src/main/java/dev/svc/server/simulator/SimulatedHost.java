package dev.svc.server.simulator;

import dev.svc.core.CpuArch;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The hardware a test agent was created with, as the simulator reports it in {@code system_info}.
 * Figures the agent record does not hold (cores, CUDA and driver versions) are fixed by the
 * agent's identity, so every result of one test agent describes the same machine.
 */
record SimulatedHost(
    String name,
    String gpuModel,
    int gpuCount,
    int vramGb,
    String cpuModel,
    int cores,
    int ramGb,
    CpuArch arch,
    String environmentType,
    String fingerprint) {

  private static final int[] CORE_CHOICES = {16, 24, 32, 48, 64};

  static SimulatedHost of(JsonObject agent) {
    String id = text(agent, "id", "test-agent");
    String gpu = text(agent, "gpu_info", "NVIDIA GPU");
    CpuArch arch = CpuArch.parse(agent.getString("cpu_arch")).orElse(CpuArch.AMD64);
    int cores = CORE_CHOICES[Math.floorMod(id.hashCode(), CORE_CHOICES.length)];
    String fingerprint = agent.getString("fingerprint");
    if (fingerprint == null || fingerprint.isBlank()) {
      fingerprint = "simulated-" + id;
    }
    return new SimulatedHost(text(agent, "name", id), gpu, number(agent, "gpu_count", 1), GpuSpecs.vramGb(gpu),
        text(agent, "cpu_info", "Simulated CPU"), cores, number(agent, "ram_gb", 64), arch,
        text(agent, "environment_type", "native_linux"), fingerprint);
  }

  boolean hasGpu() {
    return gpuCount > 0;
  }

  int vramMb() {
    return vramGb * 1024;
  }

  String os() {
    return arch == CpuArch.ARM64 ? "Ubuntu 22.04.4 LTS (aarch64)" : "Ubuntu 22.04.4 LTS (x86_64)";
  }

  /** {@code system_info} of metrics.json. */
  JsonObject systemInfo() {
    int[] cc = GpuSpecs.computeCapability(gpuModel);
    return new JsonObject()
        .put(MetricKeys.GPU, new JsonObject()
            .put(MetricKeys.GPU_MODEL, gpuModel)
            .put(MetricKeys.VRAM_GB, vramGb)
            .put(MetricKeys.GPU_COUNT, gpuCount)
            .put(MetricKeys.COMPUTE_CAPABILITY, new JsonArray().add(cc[0]).add(cc[1])))
        .put(MetricKeys.CPU, new JsonObject()
            .put(MetricKeys.CPU_MODEL, cpuModel)
            .put(MetricKeys.CPU_CORES, cores)
            .put(MetricKeys.CPU_THREADS, cores * 2))
        .put(MetricKeys.RAM_GB, ramGb)
        .put(MetricKeys.CUDA_VERSION, "12.4")
        .put(MetricKeys.DRIVER_VERSION, "550.54.14")
        .put(MetricKeys.OS, os())
        .put(MetricKeys.ENVIRONMENT_TYPE, environmentType)
        .put(MetricKeys.FINGERPRINT, fingerprint);
  }

  private static String text(JsonObject row, String key, String fallback) {
    Object value = row.getValue(key);
    return value instanceof String s && !s.isBlank() ? s : fallback;
  }

  private static int number(JsonObject row, String key, int fallback) {
    Object value = row.getValue(key);
    return value instanceof Number n ? n.intValue() : fallback;
  }
}
