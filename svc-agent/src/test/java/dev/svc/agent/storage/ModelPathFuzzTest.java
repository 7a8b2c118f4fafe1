package dev.svc.agent.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Hostile model paths from the server, resolved against a real share and a real storage directory
 * that hold files, directories and symlinks (one to a directory outside, one to a file outside, one
 * dangling, one looping): any string either resolves to a path inside the root it was looked up in
 * (through every symlink) or is refused with {@link ModelLookupException}; no other exception, never
 * a path outside. Regression mode runs the inputs under {@code ModelPathFuzzTestInputs/}.
 */
class ModelPathFuzzTest {

  private static Path dir;
  private static Path share;
  private static Path realShare;
  private static ShareLookup lookup;
  private static ModelStorage storage;
  private static Path realStorage;

  @BeforeAll
  static void tree() throws IOException {
    dir = Files.createTempDirectory("svc-model-path-fuzz-");
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("secret.gguf"), "secret");
    share = Files.createDirectories(dir.resolve("share"));
    Files.createDirectories(share.resolve("models/llama/weights"));
    Files.writeString(share.resolve("models/llama/weights/model.safetensors"), "w");
    Files.writeString(share.resolve("models/small.gguf"), "g");
    Files.createSymbolicLink(share.resolve("models/out"), outside);
    Files.createSymbolicLink(share.resolve("models/llama/leak.gguf"), outside.resolve("secret.gguf"));
    Files.createSymbolicLink(share.resolve("models/dangling"), dir.resolve("nothing"));
    Files.createSymbolicLink(share.resolve("models/llama/weights/loop"), share.resolve("models/llama"));
    Files.createSymbolicLink(share.resolve("models/alias.gguf"), share.resolve("models/small.gguf"));
    Path store = Files.createDirectories(dir.resolve("storage"));
    Files.createDirectories(store.resolve("kept/inner"));
    Files.writeString(store.resolve("kept/inner/a.gguf"), "a");
    Files.writeString(store.resolve("copy.gguf"), "c");
    Files.createSymbolicLink(store.resolve("escape"), outside);
    realShare = share.toRealPath();
    lookup = new ShareLookup(share);
    storage = new ModelStorage(store);
    realStorage = store.toRealPath();
  }

  @AfterAll
  static void remove() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @FuzzTest
  void modelPath(byte[] input) throws IOException {
    String modelPath = new String(input, StandardCharsets.UTF_8);
    Path key;
    try {
      key = ModelPaths.key(modelPath, storage.root(), share);
    } catch (ModelLookupException refused) {
      assertThat(refused).hasMessageContaining("model");
      key = null;
    }
    if (key != null) {
      assertThat(key.isAbsolute()).as("key of %s", modelPath).isFalse();
      assertThat(key.toString()).isNotEmpty();
      for (Path segment : key) {
        assertThat(segment.toString()).isNotEqualTo("..");
      }
      try {
        Optional<ShareLookup.Found> found = lookup.findIfPresent(key);
        if (found.isPresent()) {
          assertInside(found.get().path(), realShare, modelPath);
          assertThat(share.resolve(found.get().relative()).normalize()).startsWith(share);
        }
      } catch (ModelLookupException refused) {
        assertThat(refused.getMessage()).isNotBlank();
      }
      try {
        Optional<ShareLookup.Found> stored = storage.find(key);
        if (stored.isPresent()) {
          assertInside(stored.get().path(), realStorage, modelPath);
        }
      } catch (ModelLookupException refused) {
        assertThat(refused.getMessage()).isNotBlank();
      }
    }
    try {
      Path confined = storage.confined(modelPath);
      // cleanup deletes this entry itself (a symlink is not followed): it and its folder are inside
      assertThat(confined.startsWith(storage.root()) && !confined.equals(storage.root()))
          .as("%s confined to %s", modelPath, confined).isTrue();
      assertThat(confined.getParent().toRealPath()).startsWith(realStorage);
    } catch (ModelLookupException refused) {
      assertThat(refused.getMessage()).isNotBlank();
    }
  }

  /** The path and, for a directory, every entry under it resolve inside the root. */
  private static void assertInside(Path path, Path realRoot, String modelPath) throws IOException {
    assertThat(path.toRealPath()).as("%s found at %s", modelPath, path).startsWith(realRoot);
    if (Files.isDirectory(path)) {
      try (Stream<Path> walk = Files.walk(path.toRealPath())) {
        walk.forEach(entry -> {
          try {
            assertThat(entry.toRealPath()).as("%s holds %s", modelPath, entry).startsWith(realRoot);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
      }
    }
  }
}
