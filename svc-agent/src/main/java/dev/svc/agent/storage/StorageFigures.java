package dev.svc.agent.storage;

import dev.svc.agent.config.AgentConfig;
import dev.svc.core.domain.AgentSettings;
import dev.svc.core.home.SvcHome;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Figures of the model storage directory for heartbeats and {@code /api/status}: the server's
 * {@code model_storage_dir} setting when it names another directory than its default, else the
 * configured one. Blocking: call from a worker.
 */
public final class StorageFigures {

  private static final double GB = 1e9;

  private StorageFigures() {
  }

  public static Path dir(AgentConfig config, JsonObject settings) {
    return SvcHome.expand(AgentConfig.effective(settings, AgentSettings.MODEL_STORAGE_DIR, config.modelStorageDir()));
  }

  /** Free space (GB) of the file system that holds {@code dir}, or of its nearest existing parent. */
  public static double freeGb(Path dir) {
    Path probe = dir.toAbsolutePath();
    while (probe != null && !Files.exists(probe)) {
      probe = probe.getParent();
    }
    if (probe == null) {
      return 0;
    }
    try {
      return round(Files.getFileStore(probe).getUsableSpace() / GB);
    } catch (IOException e) {
      return 0;
    }
  }

  /** Bytes of every regular file under {@code dir}, in GB. */
  public static double usedGb(Path dir) {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return round(files.filter(Files::isRegularFile).mapToLong(f -> {
        try {
          return Files.size(f);
        } catch (IOException e) {
          return 0;
        }
      }).sum() / GB);
    } catch (IOException | UncheckedIOException e) {
      return 0;
    }
  }

  /** The models in the directory: its entries (a model is a file or a directory of files), hidden ones aside. */
  public static int modelCount(Path dir) {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return (int) entries.filter(p -> !p.getFileName().toString().startsWith(".")).count();
    } catch (IOException e) {
      return 0;
    }
  }

  private static double round(double gb) {
    return Math.round(gb * 100) / 100.0;
  }
}
