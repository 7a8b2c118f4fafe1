package dev.svc.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EngineCpuTest {

  @TempDir
  Path temp;

  @Test
  void aProcessesCpuIsItsThreadsAndItsReapedChildrensTicks() {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    String stat = "4242 (llama server) R 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 7 3 20 0 4 0 10 0";

    assertThat(EngineCpu.ownAndReapedTicks(stat)).isEqualTo(310);
  }

  @Test
  void aRunningProcessTreeIsReadFromProc() throws Exception {
    // this JVM has run code by now: its CPU is above 0, and it may run on at least one CPU
    EngineCpu.Reading self = EngineCpu.processTree(ProcessHandle.current().pid()).read();

    assertThat(self.cpuNs()).isPositive();
    assertThat(self.cpus().cardinality()).isPositive();
    assertThatThrownBy(() -> EngineCpu.processTree(Long.MAX_VALUE / 2).read()).isInstanceOf(java.io.IOException.class);
  }

  @Test
  void aContainersCpuIsItsCgroupsUsageUnderEitherLayoutOrUnknownWithWhere() throws Exception {
    Path scope = Files.createDirectories(temp.resolve("system.slice/docker-abc.scope"));
    Files.writeString(scope.resolve("cpu.stat"), "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n");
    Path cgroupfs = Files.createDirectories(temp.resolve("docker/def"));
    Files.writeString(cgroupfs.resolve("cpu.stat"), "usage_usec 42\n");

    assertThat(EngineCpu.container(temp, "abc").read().cpuNs()).isEqualTo(1_500_000_000L);
    assertThat(EngineCpu.container(temp, "def").read().cpuNs()).isEqualTo(42_000L);
    EngineCpu missing = EngineCpu.container(temp, "xyz");
    assertThat(missing.known()).isFalse();
    assertThat(missing.unknownReason()).startsWith("the engine container's cgroup was not found (looked for "
        + temp.resolve("system.slice/docker-xyz.scope/cpu.stat"));
    assertThat(EngineCpu.unknown(null).unknownReason()).isNull();
    assertThat(EngineCpu.usageUsec(List.of("usage_usec 7"))).isEqualTo(7);
  }
}
