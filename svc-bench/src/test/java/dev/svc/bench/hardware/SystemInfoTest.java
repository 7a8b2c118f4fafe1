package dev.svc.bench.hardware;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hardware fingerprint: real CPU, memory and OS of this machine; GPUs from nvidia-smi's output. */
class SystemInfoTest {

  @TempDir
  Path root;

  private static String fake(String name) throws Exception {
    return Path.of(SystemInfoTest.class.getResource("/fake-nvidia-smi/" + name).toURI()).toString();
  }

  @Test
  void describesThisMachineAndItsGpus() throws Exception {
    JsonObject info = SystemInfo.collect(new NvidiaSmi(fake("two-gpus"))).toJson();
    assertThat(info.getJsonObject("gpu")).isEqualTo(new JsonObject().put("model", "NVIDIA H100 80GB HBM3")
        .put("vram_gb", 79.6).put("count", 2).put("compute_capability", new JsonArray().add(9).add(0)));
    assertThat(info.getString("cuda_version")).isEqualTo("12.4");
    assertThat(info.getString("driver_version")).isEqualTo("550.54.15");
    JsonObject cpu = info.getJsonObject("cpu");
    assertThat(cpu.getString("model")).isNotBlank();
    assertThat(cpu.getInteger("threads")).isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(info.getDouble("ram_gb")).isGreaterThan(0.5);
    assertThat(info.getString("os")).isNotBlank();
    assertThat(info.getString("fingerprint")).matches("[0-9a-f]{16}");
    assertThat(SystemInfo.collect(new NvidiaSmi(fake("two-gpus"))).fingerprint())
        .isEqualTo(info.getString("fingerprint"));
  }

  @Test
  void withoutAGpuTheGpuFieldsAreNullWithTheReason() {
    JsonObject info = SystemInfo.collect(new NvidiaSmi("/nonexistent/nvidia-smi")).toJson();
    JsonObject gpu = info.getJsonObject("gpu");
    assertThat(gpu.getValue("model")).isNull();
    assertThat(gpu.getInteger("count")).isZero();
    assertThat(gpu.getString("reason")).contains("not installed");
    assertThat(info.getValue("cuda_version")).isNull();
  }

  @Test
  void environmentTypesAreReadFromTheirMarks() throws Exception {
    GpuInfo h100 = new GpuInfo(0, "NVIDIA H100", 81559.0, 0.0, "550", new int[] {9, 0});
    GpuInfo gb10 = new GpuInfo(0, "NVIDIA GB10", null, null, "580", new int[] {12, 1});
    assertThat(EnvironmentType.detect(root, Map.of(), List.of(h100))).isEqualTo("native_linux");
    assertThat(EnvironmentType.detect(root, Map.of(), List.of(gb10))).isEqualTo("dgx_spark");
    assertThat(EnvironmentType.detect(root, Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1"), List.of())).isEqualTo("container");
    Files.createDirectories(root.resolve("proc/1"));
    Files.writeString(root.resolve("proc/1/cgroup"), "0::/docker/abc\n");
    assertThat(EnvironmentType.detect(root, Map.of(), List.of())).isEqualTo("docker");
    Files.writeString(root.resolve("proc/version"), "Linux version 5.15.153.1-microsoft-standard-WSL2\n");
    assertThat(EnvironmentType.detect(root, Map.of(), List.of())).isEqualTo("wsl2");
    Files.createDirectories(root.resolve("etc"));
    Files.writeString(root.resolve("etc/dgx-release"), "DGX_NAME=\"DGX Server\"\n");
    assertThat(EnvironmentType.detect(root, Map.of(), List.of(h100))).isEqualTo("dgx");
  }
}
