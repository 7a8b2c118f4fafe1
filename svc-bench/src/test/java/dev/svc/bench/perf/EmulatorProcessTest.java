package dev.svc.bench.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The emulator process of the load-generator benchmark runs below everything else on the machine. */
class EmulatorProcessTest {

  /** Linux's scheduling policy number for SCHED_IDLE (sched.h). */
  private static final int SCHED_IDLE = 5;

  @Test
  void theEmulatorRunsInLinuxsIdleClassWhereChrtIsInstalled() throws Exception {
    assertThat(EmulatorProcess.lowestPriority()).as("chrt is part of util-linux, installed on every Debian")
        .endsWith("--idle", "0");
    try (EmulatorProcess emulator = EmulatorProcess.start(5, 1, 4)) {
      assertThat(emulator.port()).isPositive();
      List<Integer> policies;
      try (Stream<Path> threads = Files.list(Path.of("/proc", String.valueOf(emulator.pid()), "task"))) {
        policies = threads.map(EmulatorProcessTest::policy).filter(policy -> policy >= 0).toList();
      }
      assertThat(policies).as("the scheduling policy of each of the emulator's threads").isNotEmpty()
          .allMatch(policy -> policy == SCHED_IDLE);
    }
  }

  /**
   * A thread's scheduling policy: field 41 of its /proc stat line, counted after the name's closing
   * parenthesis; -1 when the thread ended after it was listed.
   */
  private static int policy(Path task) {
    try {
      String stat = Files.readString(task.resolve("stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Integer.parseInt(fields[41 - 3]);
    } catch (NoSuchFileException e) {
      return -1;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
