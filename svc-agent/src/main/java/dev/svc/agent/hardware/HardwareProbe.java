package dev.svc.agent.hardware;

import com.github.dockerjava.api.DockerClient;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.bench.hardware.NvidiaSmi;
import dev.svc.bench.hardware.SystemInfo;
import dev.svc.core.CpuArch;
import dev.svc.core.SvcVersion;
import dev.svc.core.protocol.Registration;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.lifecycle.DockerClients;
import dev.svc.engines.lifecycle.EngineImages;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import oshi.hardware.PhysicalMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Step 2 of the agent's startup: what this host is, as the registration body of protocol.md §2.1.
 * CPU, RAM, storage and OS come from OSHI, the GPUs from nvidia-smi (through svc-bench's
 * {@link SystemInfo}), the capabilities from the engine images present in the local dockerd.
 * A GPU without memory of its own (nvidia-smi answers [N/A]: DGX Spark's GB10, Jetson) shares the
 * system memory, which is then reported as its VRAM. Blocking: call from a worker.
 */
public final class HardwareProbe {

  private static final Logger LOG = LoggerFactory.getLogger(HardwareProbe.class);

  private HardwareProbe() {
  }

  /** The registration body for this host and configuration. */
  public static Registration registration(AgentHome home, AgentConfig config) {
    JsonObject info = SystemInfo.collect(new NvidiaSmi(config.nvidiaSmi()));
    return registration(config, info, hostname(), capabilities(home), ramType(), storageTypes());
  }

  /** The body from a collected {@link SystemInfo}; the rest as found on the host. */
  static Registration registration(AgentConfig config, JsonObject info, String hostname, List<String> capabilities,
      String ramType, List<String> storageTypes) {
    JsonObject gpu = unifiedMemoryFallback(info.getJsonObject("gpu"), info.getDouble("ram_gb"));
    JsonObject cpu = info.getJsonObject("cpu");
    int ramGb = (int) Math.round(info.getDouble("ram_gb"));
    int gpuCount = gpu.getInteger("count", 0);
    String gpuModel = gpu.getString("model");
    Double vram = gpu.getDouble("vram_gb");
    String gpuInfo = gpuModel == null ? "" : gpuModel + (vram == null ? "" : " " + Math.round(vram) + "GB");
    JsonArray storage = info.getJsonArray("storage", new JsonArray());
    JsonObject disk = storage.isEmpty() ? new JsonObject() : storage.getJsonObject(0);
    String diskModel = disk.getString("model", "");
    JsonArray capability = gpu.getJsonArray("compute_capability");

    JsonObject details = new JsonObject()
        .put("gpu_model", gpuModel == null ? "" : gpuModel)
        .put("gpu_vram_gb", vram)
        .put("gpu_count", gpuCount)
        .put("gpu_compute_capability", capability == null ? "" : capability.getInteger(0) + "." + capability.getInteger(1))
        .put("gpu_unified_memory", gpu.getBoolean("unified_memory", false))
        .put("cpu_model", cpu.getString("model"))
        .put("cpu_arch", CpuArch.normalize(cpu.getString("arch")))
        .put("cpu_cores", cpu.getInteger("cores"))
        .put("cpu_threads", cpu.getInteger("threads"))
        .put("ram_gb", ramGb)
        .put("ram_type", ramType)
        .put("storage_brand", diskModel.isBlank() ? "unknown" : diskModel.split("\\s+")[0])
        .put("storage_model", diskModel.isBlank() ? "unknown" : diskModel)
        .put("storage_type", storageTypes.isEmpty() ? "unknown" : storageTypes.get(0))
        .put("cuda_version", info.getString("cuda_version", ""))
        .put("driver_version", info.getString("driver_version", ""))
        .put("os", info.getString("os"))
        .put("kernel", info.getString("kernel"))
        .put("environment_type", info.getString("environment_type"))
        .put("fingerprint", info.getString("fingerprint"));

    String name = config.name() == null || config.name().isBlank() ? hostname : config.name();
    String arch = CpuArch.normalize(cpu.getString("arch"));
    return new Registration(name, hostname, config.port(), gpuInfo, gpuCount, cpu.getString("model"), arch, ramGb,
        info.getString("environment_type"), fingerprint(details), SvcVersion.version(), capabilities, details);
  }

  /**
   * A GPU listed without memory of its own (nvidia-smi's [N/A]) shares the system's: its VRAM is
   * the RAM. Marked {@code unified_memory} so the dashboard can say so.
   */
  static JsonObject unifiedMemoryFallback(JsonObject gpu, double ramGb) {
    if (gpu.getInteger("count", 0) > 0 && gpu.getValue("vram_gb") == null) {
      return gpu.copy().put("vram_gb", Math.round(ramGb * 10) / 10.0).put("unified_memory", true);
    }
    return gpu;
  }

  /** The protocol's fingerprint: the `_`-joined parts that identify the machine's class. */
  static String fingerprint(JsonObject details) {
    List<String> parts = new ArrayList<>();
    for (String key : List.of("gpu_model", "gpu_count", "cpu_model", "cpu_arch", "ram_gb", "environment_type")) {
      Object value = details.getValue(key);
      String text = value == null ? "" : String.valueOf(value).trim();
      parts.add(text.isEmpty() ? "none" : text.replaceAll("[\\s_]+", "-"));
    }
    parts.add(details.getString("fingerprint"));
    return String.join("_", parts);
  }

  public static String hostname() {
    try {
      String name = InetAddress.getLocalHost().getHostName();
      if (name != null && !name.isBlank()) {
        return name;
      }
    } catch (IOException e) {
      LOG.debug("No host name from the resolver: {}", e.getMessage());
    }
    String env = System.getenv("HOSTNAME");
    return env == null || env.isBlank() ? "localhost" : env;
  }

  /** Engines whose image for this architecture is in the local dockerd; none when dockerd does not answer. */
  static List<String> capabilities(AgentHome home) {
    EngineCatalog catalog;
    try {
      catalog = EngineCatalog.load(home.svcHome());
    } catch (IllegalArgumentException e) {
      LOG.warn("Engine catalog override unusable ({}); using the shipped engines", e.getMessage());
      catalog = EngineCatalog.defaults();
    }
    List<String> out = new ArrayList<>();
    try (DockerClient docker = DockerClients.connect()) {
      DockerClients.requireReachable(docker);
      EngineImages images = new EngineImages(docker);
      CpuArch arch = CpuArch.ofThisMachine();
      for (EngineSpec engine : catalog.all()) {
        if (engine.image(arch).map(images::isPresent).orElse(false)) {
          out.add(engine.name());
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.info("No engine capabilities reported: {}", e.getMessage());
    }
    return out;
  }

  /** The RAM type OSHI reads from the SMBIOS tables (root only on Linux), else "unknown". */
  static String ramType() {
    try {
      for (PhysicalMemory module : new oshi.SystemInfo().getHardware().getMemory().getPhysicalMemory()) {
        String type = module.getMemoryType();
        if (type != null && !type.isBlank() && !"unknown".equalsIgnoreCase(type)) {
          return type.trim();
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("No RAM type: {}", e.getMessage());
    }
    return "unknown";
  }

  /** NVMe, SSD or HDD per disk, from the kernel's view of each block device. */
  static List<String> storageTypes() {
    List<String> out = new ArrayList<>();
    for (oshi.hardware.HWDiskStore disk : new oshi.SystemInfo().getHardware().getDiskStores()) {
      if (disk.getSize() <= 0) {
        continue;
      }
      String name = Path.of(disk.getName()).getFileName().toString();
      if (name.toLowerCase(Locale.ROOT).startsWith("nvme")) {
        out.add("NVMe");
        continue;
      }
      Path rotational = Path.of("/sys/block", name, "queue/rotational");
      try {
        out.add(Files.isReadable(rotational) && Files.readString(rotational).trim().equals("1") ? "HDD" : "SSD");
      } catch (IOException e) {
        out.add("unknown");
      }
    }
    return out;
  }
}
