package dev.svc.agent.engine;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The agent's one durable record of the commands the engine accepted, one JSON file per command id
 * ({@code <home>/jobs}): a resent command is recognised after an agent restart too, and a
 * benchmark the restart interrupted is reported at the next start. Written atomically before a
 * command is acknowledged. Blocking: call it from a worker.
 *
 * <p>States: {@code accepted} → {@code running} (benchmark started; {@code pid} when a local
 * process) → {@code ended} (the benchmark exited; {@code exit}) → {@code done} (what it owed is in
 * the uplink's spool).
 */
public final class CommandJournal {

  static final String ACCEPTED = "accepted";
  static final String RUNNING = "running";
  static final String ENDED = "ended";
  static final String DONE = "done";

  /**
   * Whether this agent accepted the command ({@code known}) and whether it is over ({@code done}),
   * from its record under {@code jobsDir}. Blocking.
   */
  public static Optional<Boolean> done(Path jobsDir, String commandId) {
    Path file = jobsDir.resolve(commandId + ".json");
    try {
      return Optional.of(DONE.equals(new JsonObject(Files.readString(file))
          .getString("state")));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** How many records are kept; older finished ones are pruned (the server gives up resending long before). */
  private static final int KEEP = 500;

  private final Path dir;

  CommandJournal(Path dir) {
    this.dir = dir;
  }

  Path dir() {
    return dir;
  }

  Optional<JsonObject> get(String commandId) {
    Path file = file(commandId);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(new JsonObject(Files.readString(file, StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      // a torn record cannot happen (atomic writes); a foreign file is ignored
      return Optional.empty();
    }
  }

  void put(JsonObject record) {
    try {
      Files.createDirectories(dir);
      Path file = file(record.getString("command_id"));
      Path tmp = dir.resolve(file.getFileName() + ".tmp");
      Files.writeString(tmp, record.encodePrettily(), StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the job record in " + dir, e);
    }
  }

  /** Every record, oldest first. */
  List<JsonObject> all() {
    List<Path> files = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*.json")) {
        entries.forEach(files::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    files.sort(Comparator.comparingLong(CommandJournal::modified));
    List<JsonObject> records = new ArrayList<>();
    for (Path file : files) {
      try {
        records.add(new JsonObject(Files.readString(file, StandardCharsets.UTF_8)));
      } catch (IOException | RuntimeException e) {
        // skipped: see get()
      }
    }
    return records;
  }

  /** Removes the oldest finished records beyond {@link #KEEP}. */
  void prune() {
    List<JsonObject> records = all();
    int excess = records.size() - KEEP;
    for (JsonObject record : records) {
      if (excess <= 0) {
        break;
      }
      if (DONE.equals(record.getString("state"))) {
        try {
          Files.deleteIfExists(file(record.getString("command_id")));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        excess--;
      }
    }
  }

  private Path file(String commandId) {
    return dir.resolve(fileName(commandId));
  }

  /** The command id as a file name: kept when it is plain, hashed otherwise. */
  static String fileName(String commandId) {
    if (commandId.matches("[A-Za-z0-9_-]{1,100}")) {
      return commandId + ".json";
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(commandId.getBytes(StandardCharsets.UTF_8));
      return "h-" + HexFormat.of().formatHex(digest, 0, 16) + ".json";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long modified(Path file) {
    try {
      return Files.getLastModifiedTime(file).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }
}
