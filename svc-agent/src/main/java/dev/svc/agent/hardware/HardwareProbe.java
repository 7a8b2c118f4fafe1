package dev.svc.agent.hardware;

import com.github.dockerjava.api.DockerClient;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.bench.hardware.MachineInfo;
import dev.svc.bench.hardware.NvidiaSmi;
import dev.svc.bench.hardware.SystemInfo;
import dev.svc.core.CpuArch;
import dev.svc.core.SvcVersion;
import dev.svc.core.protocol.Registration;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.lifecycle.DockerClients;
import dev.svc.engines.lifecycle.EngineImages;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
    MachineInfo info = SystemInfo.collect(new NvidiaSmi(config.nvidiaSmi()));
    return registration(config, info, hostname(), capabilities(home), ramType(), storageTypes());
  }

  /** The body from a collected {@link SystemInfo}; the rest as found on the host. */
  static Registration registration(AgentConfig config, MachineInfo info, String hostname, List<String> capabilities,
      String ramType, List<String> storageTypes) {
    MachineInfo.Gpu gpu = info.gpu();
    MachineInfo.Cpu cpu = info.cpu();
    int ramGb = (int) Math.round(info.ramGb());
    // a GPU listed without memory of its own (nvidia-smi's [N/A]) shares the system's: its VRAM is the RAM
    boolean unifiedMemory = gpu.count() > 0 && gpu.vramGb() == null;
    Double vram = unifiedMemory ? Double.valueOf(Math.round(info.ramGb() * 10) / 10.0) : gpu.vramGb();
    String gpuModel = gpu.model();
    String gpuInfo = gpuModel == null ? "" : gpuModel + (vram == null ? "" : " " + Math.round(vram) + "GB");
    String diskModel = info.storage().isEmpty() ? "" : info.storage().get(0).model();
    List<Integer> capability = gpu.computeCapability();
    String arch = CpuArch.normalize(cpu.arch());

    JsonObject details = new JsonObject()
        .put("gpu_model", gpuModel == null ? "" : gpuModel)
        .put("gpu_vram_gb", vram)
        .put("gpu_count", gpu.count())
        .put("gpu_compute_capability", capability == null ? "" : capability.get(0) + "." + capability.get(1))
        .put("gpu_unified_memory", unifiedMemory)
        .put("cpu_model", cpu.model())
        .put("cpu_arch", arch)
        .put("cpu_cores", cpu.cores())
        .put("cpu_threads", cpu.threads())
        .put("ram_gb", ramGb)
        .put("ram_type", ramType)
        .put("storage_brand", diskModel.isBlank() ? "unknown" : diskModel.split("\\s+")[0])
        .put("storage_model", diskModel.isBlank() ? "unknown" : diskModel)
        .put("storage_type", storageTypes.isEmpty() ? "unknown" : storageTypes.get(0))
        .put("cuda_version", info.cudaVersion() == null ? "" : info.cudaVersion())
        .put("driver_version", info.driverVersion() == null ? "" : info.driverVersion())
        .put("os", info.os())
        .put("kernel", info.kernel())
        .put("environment_type", info.environmentType())
        .put("fingerprint", info.fingerprint());

    String name = config.name() == null || config.name().isBlank() ? hostname : config.name();
    return new Registration(name, hostname, config.port(), gpuInfo, gpu.count(), cpu.model(), arch, ramGb,
        info.environmentType(), fingerprint(Arrays.asList(gpuModel == null ? "" : gpuModel, gpu.count(), cpu.model(),
            arch, ramGb, info.environmentType()), info.fingerprint()), SvcVersion.version(), capabilities, details);
  }

  /**
   * The protocol's fingerprint: the `_`-joined parts that identify the machine's class (GPU model
   * and count, CPU model and architecture, RAM, environment), then the machine's own fingerprint.
   */
  static String fingerprint(List<Object> classParts, String machine) {
    List<String> parts = new ArrayList<>();
    for (Object value : classParts) {
      String text = value == null ? "" : String.valueOf(value).trim();
      parts.add(text.isEmpty() ? "none" : text.replaceAll("[\\s_]+", "-"));
    }
    parts.add(machine);
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
