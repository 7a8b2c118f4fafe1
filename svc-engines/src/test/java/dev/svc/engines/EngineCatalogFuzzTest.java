package dev.svc.engines;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Hostile {@code engines.yaml}: whatever a user's override file holds, the catalog either loads (every
 * engine complete) or is refused with the project's IllegalArgumentException naming the file; never
 * another exception type (a YAML library internal, a ClassCastException, a StackOverflowError), never a
 * hang (alias bombs). Regression mode runs the inputs under {@code EngineCatalogFuzzTestInputs/}.
 */
class EngineCatalogFuzzTest {

  private static Path dir;
  private static Path file;

  @BeforeAll
  static void folder() throws IOException {
    dir = Files.createTempDirectory("svc-engines-fuzz-");
    file = dir.resolve("engines.yaml");
  }

  @AfterAll
  static void remove() throws IOException {
    Files.deleteIfExists(file);
    Files.deleteIfExists(dir);
  }

  @FuzzTest
  void overrideFile(byte[] input) {
    try {
      Files.write(file, input);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    EngineCatalog catalog;
    try {
      catalog = EngineCatalog.load(Optional.of(file));
    } catch (IllegalArgumentException refused) {
      assertThat(refused).hasMessageStartingWith("Engine file " + file.toAbsolutePath());
      assertThat(refused.getClass()).as("the project's refusal, not a subclass from a library")
          .isEqualTo(IllegalArgumentException.class);
      return;
    }
    // loaded: the shipped engines, each still complete (an override changes fields, never removes them)
    assertThat(catalog.names()).isEqualTo(EngineCatalog.defaults().names());
    for (EngineSpec engine : catalog.all()) {
      assertThat(engine.formats()).as(engine.name()).isNotEmpty();
      assertThat(engine.defaultPort()).as(engine.name()).isBetween(1, 65535);
      assertThat(engine.healthPath()).as(engine.name()).startsWith("/");
      assertThat(engine.api()).as(engine.name()).isNotNull();
      assertThat(engine.healthSuccess()).as(engine.name()).isNotNull();
    }
  }
}
