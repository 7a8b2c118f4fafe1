package dev.svc.bench.hardware;

import dev.svc.core.CpuArch;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
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

  public static MachineInfo collect(NvidiaSmi smi) {
    return collect(smi, smi.gpus());
  }

  /** The fingerprint with the GPUs {@code listing} found (read once for a whole run). */
  public static MachineInfo collect(NvidiaSmi smi, NvidiaSmi.Listing listing) {
    oshi.SystemInfo oshi = new oshi.SystemInfo();
    HardwareAbstractionLayer hal = oshi.getHardware();
    CentralProcessor cpu = hal.getProcessor();
    OperatingSystem os = oshi.getOperatingSystem();
    List<GpuInfo> gpus = listing.gpus();

    MachineInfo.Gpu gpu = gpu(gpus, listing.problem());
    MachineInfo.Cpu processor = new MachineInfo.Cpu(cpu.getProcessorIdentifier().getName().trim(),
        CpuArch.ofThisMachine().wireName(), cpu.getPhysicalProcessorCount(), cpu.getLogicalProcessorCount());
    double ramGb = Math.round(hal.getMemory().getTotal() / 1e9 * 10) / 10.0;
    String environment = EnvironmentType.detect(Path.of("/"), System.getenv(), gpus);
    return new MachineInfo(gpu, processor, ramGb, storage(hal.getDiskStores()),
        gpus.isEmpty() ? null : smi.cudaVersion().orElse(null), gpus.isEmpty() ? null : gpus.get(0).driverVersion(),
        os.toString(), os.getVersionInfo().getBuildNumber(), environment,
        fingerprint(gpu, processor, ramGb, environment));
  }

  static MachineInfo.Gpu gpu(List<GpuInfo> gpus, String problem) {
    if (gpus.isEmpty()) {
      return new MachineInfo.Gpu(null, null, 0, null, problem);
    }
    GpuInfo first = gpus.get(0);
    int[] cc = first.computeCapability();
    return new MachineInfo.Gpu(first.name(),
        first.memoryTotalMb() == null ? null : Math.round(first.memoryTotalMb() / 1024.0 * 10) / 10.0,
        gpus.size(), cc == null ? null : List.of(cc[0], cc[1]), null);
  }

  private static List<MachineInfo.Disk> storage(List<HWDiskStore> disks) {
    List<MachineInfo.Disk> out = new ArrayList<>();
    for (HWDiskStore disk : disks) {
      if (disk.getSize() <= 0) {
        continue;
      }
      out.add(new MachineInfo.Disk(disk.getName(), disk.getModel().trim(), Math.round(disk.getSize() / 1e9)));
    }
    return out;
  }

  /** SHA-256 (first 16 hex digits) of GPU model and count, CPU model, RAM and environment type. */
  static String fingerprint(MachineInfo.Gpu gpu, MachineInfo.Cpu cpu, double ramGb, String environmentType) {
    String basis = String.join("|", String.valueOf(gpu.model()), String.valueOf(gpu.count()), cpu.model(),
        String.valueOf(Math.round(ramGb)), environmentType);
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(basis.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from the JDK", e);
    }
  }
}
