package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RotatingLogTest {

  @TempDir
  Path dir;

  @Test
  void theMissionsBoundIsFiveMegabytesAndThreeBackups() {
    assertThat(RotatingLog.MAX_BYTES).isEqualTo(5L * 1024 * 1024);
    assertThat(RotatingLog.BACKUPS).isEqualTo(3);
  }

  @Test
  void rotatesAtTheSizeBoundAndKeepsThreeBackups() throws IOException {
    Path file = dir.resolve("logs").resolve("agent.log");
    List<String> written = new ArrayList<>();
    try (RotatingLog log = new RotatingLog(file, 100, 3); PrintStream out = new PrintStream(log, true,
        StandardCharsets.UTF_8)) {
      // 19 bytes a line: five lines (95 bytes) fit in a file, the sixth starts a new one
      for (int i = 0; i < 30; i++) {
        String line = String.format("line %03d of thirty", i);
        out.println(line);
        written.add(line);
      }
    }
    assertThat(Files.size(file)).isLessThanOrEqualTo(100);
    for (int n = 1; n <= 3; n++) {
      assertThat(Files.size(RotatingLog.backup(file, n))).as("agent.log.%d", n).isLessThanOrEqualTo(100);
    }
    assertThat(RotatingLog.backup(file, 4)).doesNotExist();
    // newest last: .3, .2, .1, the current file; the oldest lines are gone
    List<String> kept = new ArrayList<>();
    for (Path p : List.of(RotatingLog.backup(file, 3), RotatingLog.backup(file, 2), RotatingLog.backup(file, 1), file)) {
      kept.addAll(Files.readAllLines(p));
    }
    assertThat(kept).containsExactlyElementsOf(written.subList(written.size() - kept.size(), written.size()));
    assertThat(kept).hasSize(20);
    assertThat(Files.readAllLines(file)).containsExactly("line 025 of thirty", "line 026 of thirty",
        "line 027 of thirty", "line 028 of thirty", "line 029 of thirty");
  }

  @Test
  void appendsToAnExistingLogAndRotatesIt() throws IOException {
    Path file = dir.resolve("agent.log");
    Files.writeString(file, "x".repeat(90) + "\n");
    try (RotatingLog log = new RotatingLog(file, 100, 3)) {
      log.write("a line of twenty b\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(Files.readString(RotatingLog.backup(file, 1))).isEqualTo("x".repeat(90) + "\n");
    assertThat(Files.readString(file)).isEqualTo("a line of twenty b\n");
  }

  @Test
  void aWriteLargerThanTheBoundLandsWholeInAFreshFile() throws IOException {
    Path file = dir.resolve("agent.log");
    try (RotatingLog log = new RotatingLog(file, 10, 3)) {
      log.write("small\n".getBytes(StandardCharsets.UTF_8));
      log.write("a very long line indeed\n".getBytes(StandardCharsets.UTF_8));
      log.write("next\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(Files.readString(RotatingLog.backup(file, 2))).isEqualTo("small\n");
    assertThat(Files.readString(RotatingLog.backup(file, 1))).isEqualTo("a very long line indeed\n");
    assertThat(Files.readString(file)).isEqualTo("next\n");
  }
}
