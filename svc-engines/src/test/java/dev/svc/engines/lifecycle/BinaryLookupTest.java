package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link BinaryLookup#find}: where a native binary is on this host, by a PATH and a home of the test's own. */
class BinaryLookupTest {

  @TempDir Path dir;

  private Path empty;
  private Path bin;
  private Path home;
  private BinaryLookup lookup;

  @BeforeEach
  void lookupOnATemporaryPath() throws IOException {
    empty = Files.createDirectories(dir.resolve("empty"));
    bin = Files.createDirectories(dir.resolve("bin"));
    home = Files.createDirectories(dir.resolve("home"));
    lookup = new BinaryLookup(empty + File.pathSeparator + File.pathSeparator + bin, home);
  }

  private static Path executable(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    return Files.copy(Path.of("/bin/true"), file, StandardCopyOption.COPY_ATTRIBUTES);
  }

  @Test
  void aBareNameIsFoundInThePathDirectoryThatHoldsIt() throws IOException {
    Path server = executable(bin.resolve("llama-server"));

    assertThat(lookup.find("llama-server")).contains(server);
    assertThat(lookup.find("vllm")).isEmpty();
  }

  @Test
  void aPathIsTakenAsWrittenAndTildeIsTheHome() throws IOException {
    Path absolute = executable(dir.resolve("opt/llama-server"));
    Path inHome = executable(home.resolve("llama.cpp/llama-server"));

    assertThat(lookup.find(absolute.toString())).contains(absolute);
    assertThat(lookup.find(dir + "/opt/../opt/llama-server")).contains(absolute);
    assertThat(lookup.find("~/llama.cpp/llama-server")).contains(inHome);
    assertThat(lookup.find(dir.resolve("missing/llama-server").toString())).isEmpty();
  }

  @Test
  void aFileThatCannotBeExecutedOrADirectoryIsNotFound() throws IOException {
    Files.writeString(bin.resolve("vllm"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(bin.resolve("vllm"), PosixFilePermissions.fromString("rw-r--r--"));
    Files.createDirectories(bin.resolve("tgi"));

    assertThat(lookup.find("vllm")).isEmpty();
    assertThat(lookup.find(bin.resolve("vllm").toString())).isEmpty();
    assertThat(lookup.find("tgi")).isEmpty();
    assertThat(lookup.find(bin.resolve("tgi").toString())).isEmpty();
  }
}
