package dev.svc.server.simulator;

import dev.svc.core.CpuArch;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.server.store.StoredAgent;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The hardware a test agent was created with, as the simulator reports it in {@code system_info}.
 * Figures the agent record does not hold (cores, CUDA and driver versions) are fixed by the
 * agent's identity, so every result of one test agent describes the same machine.
 */
public record SimulatedHost(
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

  static SimulatedHost of(StoredAgent agent) {
    return of(agent.id(), agent.name(), agent.gpuInfo(), agent.gpuCount(), agent.cpuInfo(), agent.cpuArch(),
        agent.ramGb(), agent.environmentType(), agent.fingerprint());
  }

  /** The host of an agent with this hardware; what it does not say (null or blank) gets a fixed default. */
  public static SimulatedHost of(String id, String name, String gpuInfo, Number gpuCount, String cpuInfo,
      String cpuArch, Number ramGb, String environmentType, String fingerprint) {
    String agentId = text(id, "test-agent");
    String gpu = text(gpuInfo, "NVIDIA GPU");
    CpuArch arch = CpuArch.parse(cpuArch).orElse(CpuArch.AMD64);
    int cores = CORE_CHOICES[Math.floorMod(agentId.hashCode(), CORE_CHOICES.length)];
    return new SimulatedHost(text(name, agentId), gpu, gpuCount == null ? 1 : gpuCount.intValue(),
        GpuSpecs.vramGb(gpu), text(cpuInfo, "Simulated CPU"), cores, ramGb == null ? 64 : ramGb.intValue(), arch,
        text(environmentType, "native_linux"), text(fingerprint, "simulated-" + agentId));
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

  private static String text(String value, String fallback) {
    return value != null && !value.isBlank() ? value : fallback;
  }
}
