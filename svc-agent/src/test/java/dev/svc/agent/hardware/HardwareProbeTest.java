package dev.svc.agent.hardware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.core.protocol.Registration;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import oshi.SystemInfo;

/** The registration body of protocol.md §2.1 from this machine's real CPU, memory and OS. */
class HardwareProbeTest {

  static final List<String> DETAIL_KEYS = List.of("gpu_model", "gpu_vram_gb", "gpu_count", "gpu_compute_capability",
      "cpu_model", "cpu_arch", "cpu_cores", "cpu_threads", "ram_gb", "ram_type", "storage_brand", "storage_model",
      "storage_type", "cuda_version", "driver_version", "os", "kernel", "environment_type", "fingerprint");

  @TempDir
  Path dir;

  private AgentConfig config(String nvidiaSmi) {
    return new AgentConfig("https://127.0.0.1:1", "t", "probe-agent", 8095, null, dir.resolve("models").toString(), null,
        null, null, null, nvidiaSmi, null);
  }

  private String standIn(String gpuRows) throws Exception {
    Path script = dir.resolve("nvidia-smi");
    Files.writeString(script, "#!/bin/sh\n# prints what nvidia-smi prints on the host described\ncase \"$*\" in\n"
        + "  *--query-gpu=index,name*) printf '" + gpuRows + "' ;;\n"
        + "  \"\") echo '| NVIDIA-SMI 580.95.05   Driver Version: 580.95.05   CUDA Version: 13.0 |' ;;\n"
        + "  *) echo \"unexpected arguments: $*\" >&2; exit 2 ;;\nesac\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script.toString();
  }

  @Test
  void thisMachineWithoutAGpu() {
    JsonObject body = HardwareProbe.registration(new AgentHome(dir), config(dir.resolve("absent").toString())).toJson();
    var cpu = new SystemInfo().getHardware().getProcessor();
    assertThat(body.getString("name")).isEqualTo("probe-agent");
    assertThat(body.getString("hostname")).isNotBlank();
    assertThat(body.getInteger("port")).isEqualTo(8095);
    assertThat(body.getString("cpu_info")).isEqualTo(cpu.getProcessorIdentifier().getName().trim());
    assertThat(body.getString("cpu_arch")).isEqualTo("amd64");
    long ramGb = Math.round(new SystemInfo().getHardware().getMemory().getTotal() / 1e9);
    assertThat(body.getInteger("ram_gb")).isBetween((int) ramGb - 1, (int) ramGb + 1);
    assertThat(body.getInteger("gpu_count")).isZero();
    assertThat(body.getString("environment_type")).isIn("native_linux", "docker", "container", "wsl2");
    assertThat(body.getString("agent_version")).isNotBlank().isEqualTo(body.getString("kitt_version"));
    assertThat(body.getJsonArray("capabilities")).isNotNull();
    assertThat(body.getString("fingerprint")).contains("_").endsWith(body.getJsonObject("hardware_details").getString("fingerprint"));
    JsonObject details = body.getJsonObject("hardware_details");
    assertThat(details.fieldNames()).containsAll(DETAIL_KEYS);
    assertThat(details.getInteger("cpu_cores")).isEqualTo(cpu.getPhysicalProcessorCount());
    assertThat(details.getInteger("cpu_threads")).isEqualTo(cpu.getLogicalProcessorCount());
    assertThat(Registration.parse(body).toJson()).as("what the server reads back").isEqualTo(body);
  }

  @Test
  void aDedicatedGpuKeepsItsOwnMemory() throws Exception {
    JsonObject body = HardwareProbe.registration(new AgentHome(dir),
        config(standIn("0, NVIDIA H100 80GB HBM3, 81559, 1024, 580.95.05, 9.0\\n"))).toJson();
    assertThat(body.getString("gpu_info")).isEqualTo("NVIDIA H100 80GB HBM3 80GB");
    JsonObject details = body.getJsonObject("hardware_details");
    assertThat(details.getDouble("gpu_vram_gb")).isEqualTo(79.6);
    assertThat(details.getString("gpu_compute_capability")).isEqualTo("9.0");
    assertThat(details.getString("cuda_version")).isEqualTo("13.0");
    assertThat(details.getString("driver_version")).isEqualTo("580.95.05");
    assertThat(details.getBoolean("gpu_unified_memory")).isFalse();
  }

  @Test
  void aUnifiedMemoryGpuGetsTheSystemMemoryAsItsVram() throws Exception {
    JsonObject body = HardwareProbe.registration(new AgentHome(dir),
        config(standIn("0, NVIDIA GB10, [N/A], [N/A], 580.95.05, 12.1\\n"))).toJson();
    double ramGb = Math.round(new SystemInfo().getHardware().getMemory().getTotal() / 1e9 * 10) / 10.0;
    JsonObject details = body.getJsonObject("hardware_details");
    assertThat(details.getDouble("gpu_vram_gb")).isEqualTo(ramGb);
    assertThat(details.getBoolean("gpu_unified_memory")).isTrue();
    assertThat(body.getInteger("gpu_count")).isEqualTo(1);
    assertThat(body.getString("gpu_info")).isEqualTo("NVIDIA GB10 " + Math.round(ramGb) + "GB");
    assertThat(body.getString("environment_type")).isEqualTo("dgx_spark");
  }
}
