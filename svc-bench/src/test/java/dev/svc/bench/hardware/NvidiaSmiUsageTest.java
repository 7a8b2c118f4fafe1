package dev.svc.bench.hardware;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GPU utilisation and memory in use for the agent's heartbeat, from nvidia-smi's CSV output. */
class NvidiaSmiUsageTest {

  @TempDir
  Path dir;

  /** A stand-in nvidia-smi that answers the usage query with {@code rows}, as the real tool prints them. */
  private String standIn(String rows) throws Exception {
    Path script = dir.resolve("nvidia-smi");
    Files.writeString(script, "#!/bin/sh\ncase \"$*\" in\n  *--query-gpu=utilization.gpu,memory.used*) printf '"
        + rows + "' ;;\n  *) echo \"unexpected arguments: $*\" >&2; exit 2 ;;\nesac\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script.toString();
  }

  @Test
  void meanUtilisationAndSummedMemoryOverAllGpus() throws Exception {
    NvidiaSmi.Usage usage = new NvidiaSmi(standIn("40, 1024\\n80, 3072\\n")).usage().orElseThrow();
    assertThat(usage.utilizationPct()).isEqualTo(60.0);
    assertThat(usage.memoryUsedMb()).isEqualTo(4096.0);
  }

  @Test
  void unifiedMemoryReportsNoGpuMemory() throws Exception {
    NvidiaSmi.Usage usage = new NvidiaSmi(standIn("12, [N/A]\\n")).usage().orElseThrow();
    assertThat(usage.utilizationPct()).isEqualTo(12.0);
    assertThat(usage.memoryUsedMb()).isNull();
  }

  @Test
  void noNvidiaSmiNoUsage() {
    assertThat(new NvidiaSmi(dir.resolve("absent").toString()).usage()).isEmpty();
  }
}
