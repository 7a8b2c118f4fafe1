package dev.svc.bench.hardware;

import dev.svc.core.CpuArch;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import oshi.hardware.CentralProcessor;
import oshi.hardware.HWDiskStore;
import oshi.hardware.HardwareAbstractionLayer;
import oshi.software.os.OperatingSystem;

/**
 * The hardware fingerprint recorded in metrics.json's {@code system_info} and sent at agent
 * registration: GPUs and driver through nvidia-smi, CPU, memory, storage and OS through OSHI,
 * the environment type, and a fingerprint hash of the parts that identify the machine's class.
 * Blocking: call from a worker thread.
 */
public final class SystemInfo {

  private SystemInfo() {
  }

  public static JsonObject collect(NvidiaSmi smi) {
    return collect(smi, smi.gpus());
  }

  /** The fingerprint with the GPUs {@code listing} found (read once for a whole run). */
  public static JsonObject collect(NvidiaSmi smi, NvidiaSmi.Listing listing) {
    oshi.SystemInfo oshi = new oshi.SystemInfo();
    HardwareAbstractionLayer hal = oshi.getHardware();
    CentralProcessor cpu = hal.getProcessor();
    OperatingSystem os = oshi.getOperatingSystem();
    List<GpuInfo> gpus = listing.gpus();

    JsonObject out = new JsonObject();
    out.put("gpu", gpu(gpus, listing.problem()));
    out.put("cpu", new JsonObject().put("model", cpu.getProcessorIdentifier().getName().trim())
        .put("arch", CpuArch.ofThisMachine().wireName())
        .put("cores", cpu.getPhysicalProcessorCount()).put("threads", cpu.getLogicalProcessorCount()));
    out.put("ram_gb", Math.round(hal.getMemory().getTotal() / 1e9 * 10) / 10.0);
    out.put("storage", storage(hal.getDiskStores()));
    out.put("cuda_version", gpus.isEmpty() ? null : smi.cudaVersion().orElse(null));
    out.put("driver_version", gpus.isEmpty() ? null : gpus.get(0).driverVersion());
    out.put("os", os.toString());
    out.put("kernel", os.getVersionInfo().getBuildNumber());
    out.put("environment_type", EnvironmentType.detect(Path.of("/"), System.getenv(), gpus));
    out.put("fingerprint", fingerprint(out));
    return out;
  }

  static JsonObject gpu(List<GpuInfo> gpus, String problem) {
    if (gpus.isEmpty()) {
      return new JsonObject().putNull("model").putNull("vram_gb").put("count", 0).putNull("compute_capability")
          .put("reason", problem);
    }
    GpuInfo first = gpus.get(0);
    return new JsonObject().put("model", first.name())
        .put("vram_gb", first.memoryTotalMb() == null ? null : Math.round(first.memoryTotalMb() / 1024.0 * 10) / 10.0)
        .put("count", gpus.size())
        .put("compute_capability", first.computeCapability() == null ? null
            : new JsonArray().add(first.computeCapability()[0]).add(first.computeCapability()[1]));
  }

  private static JsonArray storage(List<HWDiskStore> disks) {
    JsonArray out = new JsonArray();
    for (HWDiskStore disk : disks) {
      if (disk.getSize() <= 0) {
        continue;
      }
      out.add(new JsonObject().put("name", disk.getName()).put("model", disk.getModel().trim())
          .put("size_gb", Math.round(disk.getSize() / 1e9)));
    }
    return out;
  }

  /** SHA-256 (first 16 hex digits) of GPU model and count, CPU model, RAM and environment type. */
  static String fingerprint(JsonObject info) {
    String basis = String.join("|", String.valueOf(info.getJsonObject("gpu").getValue("model")),
        String.valueOf(info.getJsonObject("gpu").getValue("count")), info.getJsonObject("cpu").getString("model"),
        String.valueOf(Math.round(info.getDouble("ram_gb"))), info.getString("environment_type"));
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(basis.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from the JDK", e);
    }
  }
}
