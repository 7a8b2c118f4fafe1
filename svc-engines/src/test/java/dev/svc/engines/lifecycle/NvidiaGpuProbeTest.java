package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GPU detection from the driver's /proc entries and nvidia-smi, with the reason when there are none. */
class NvidiaGpuProbeTest {

  @TempDir Path dir;

  @Test
  void gpusListedByTheDriverAreFound() throws IOException {
    Path gpus = Files.createDirectories(dir.resolve("gpus"));
    Files.createDirectory(gpus.resolve("0000:17:00.0"));
    Files.createDirectory(gpus.resolve("0000:65:00.0"));

    GpuAvailability found = new NvidiaGpuProbe(gpus, List.of("no-such-nvidia-smi")).detect();

    assertThat(found.present()).isTrue();
    assertThat(found.detail()).isEqualTo("2 NVIDIA GPU(s) listed in " + gpus);
  }

  @Test
  void gpusListedByNvidiaSmiAreFound() {
    List<String> smi = List.of("sh", "-c", "echo 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)'");

    GpuAvailability found = new NvidiaGpuProbe(dir.resolve("absent"), smi).detect();

    assertThat(found).isEqualTo(GpuAvailability.found("1 NVIDIA GPU(s) listed by sh"));
  }

  @Test
  void withoutDriverOrToolTheReasonSaysWhatWasLookedAt() {
    GpuAvailability none = new NvidiaGpuProbe(dir.resolve("absent"), List.of("no-such-nvidia-smi", "-L")).detect();

    assertThat(none.present()).isFalse();
    assertThat(none.detail()).isEqualTo("no NVIDIA GPU on this host (" + dir.resolve("absent")
        + " does not exist and no-such-nvidia-smi is not installed)");
  }

  @Test
  void aFailingNvidiaSmiIsNoGpu() {
    List<String> smi = List.of("sh", "-c", "echo 'NVIDIA-SMI has failed because it could not communicate with the driver'; exit 9");

    GpuAvailability none = new NvidiaGpuProbe(dir.resolve("absent"), smi).detect();

    assertThat(none.present()).isFalse();
    assertThat(none.detail()).contains("exited 9: NVIDIA-SMI has failed");
  }
}
