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
 * <p>Each record is a {@link JournalEntry}; its states are {@link JournalEntry.State}.
 */
public final class CommandJournal {

  /**
   * Whether this agent accepted the command ({@code known}) and whether it is over ({@code done}),
   * from its record under {@code jobsDir}. Blocking.
   */
  public static Optional<Boolean> done(Path jobsDir, String commandId) {
    try {
      return new CommandJournal(jobsDir).get(commandId).map(entry -> entry.state() == JournalEntry.State.DONE);
    } catch (UncheckedIOException e) {
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

  Optional<JournalEntry> get(String commandId) {
    Path file = file(commandId);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(JournalEntry.parse(new JsonObject(Files.readString(file, StandardCharsets.UTF_8))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      // a torn record cannot happen (atomic writes); a foreign file is ignored
      return Optional.empty();
    }
  }

  void put(JournalEntry entry) {
    try {
      Files.createDirectories(dir);
      Path file = file(entry.commandId());
      Path tmp = dir.resolve(file.getFileName() + ".tmp");
      Files.writeString(tmp, entry.toJson().encodePrettily(), StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the job record in " + dir, e);
    }
  }

  /** Every record, oldest first. */
  List<JournalEntry> all() {
    List<Path> files = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*.json")) {
        entries.forEach(files::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    files.sort(Comparator.comparingLong(CommandJournal::modified));
    List<JournalEntry> records = new ArrayList<>();
    for (Path file : files) {
      try {
        records.add(JournalEntry.parse(new JsonObject(Files.readString(file, StandardCharsets.UTF_8))));
      } catch (IOException | RuntimeException e) {
        // skipped: see get()
      }
    }
    return records;
  }

  /** Removes the oldest finished records beyond {@link #KEEP}. */
  void prune() {
    List<JournalEntry> records = all();
    int excess = records.size() - KEEP;
    for (JournalEntry record : records) {
      if (excess <= 0) {
        break;
      }
      if (record.state() == JournalEntry.State.DONE) {
        try {
          Files.deleteIfExists(file(record.commandId()));
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
