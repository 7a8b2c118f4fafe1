package dev.svc.bench.hardware;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What {@link SystemInfo} found on this machine: metrics.json's {@code system_info} ({@link #toJson})
 * and what an agent registers with.
 *
 * @param ramGb total memory in GB, one decimal
 * @param cudaVersion null without GPUs
 * @param driverVersion null without GPUs
 * @param fingerprint SHA-256 (first 16 hex digits) of the parts that identify the machine's class
 */
public record MachineInfo(Gpu gpu, Cpu cpu, double ramGb, List<Disk> storage, String cudaVersion,
    String driverVersion, String os, String kernel, String environmentType, String fingerprint) {

  /**
   * The first GPU's model and memory and how many there are; without GPUs, why none were found.
   *
   * @param vramGb null when nvidia-smi reports no memory of its own ([N/A]: unified memory)
   * @param computeCapability major and minor, or null when unknown
   */
  public record Gpu(String model, Double vramGb, int count, List<Integer> computeCapability, String reason) {

    JsonObject toJson() {
      JsonObject out = new JsonObject().put("model", model).put("vram_gb", vramGb).put("count", count)
          .put("compute_capability", computeCapability == null ? null : new JsonArray(computeCapability));
      return count == 0 ? out.put("reason", reason) : out;
    }
  }

  public record Cpu(String model, String arch, int cores, int threads) {

    JsonObject toJson() {
      return new JsonObject().put("model", model).put("arch", arch).put("cores", cores).put("threads", threads);
    }
  }

  public record Disk(String name, String model, long sizeGb) {

    JsonObject toJson() {
      return new JsonObject().put("name", name).put("model", model).put("size_gb", sizeGb);
    }
  }

  /** metrics.json's {@code system_info}. */
  public JsonObject toJson() {
    JsonArray disks = new JsonArray();
    storage.forEach(d -> disks.add(d.toJson()));
    return new JsonObject().put("gpu", gpu.toJson()).put("cpu", cpu.toJson()).put("ram_gb", ramGb)
        .put("storage", disks).put("cuda_version", cudaVersion).put("driver_version", driverVersion).put("os", os)
        .put("kernel", kernel).put("environment_type", environmentType).put("fingerprint", fingerprint);
  }
}
