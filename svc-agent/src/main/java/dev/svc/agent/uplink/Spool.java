package dev.svc.agent.uplink;

import dev.svc.core.home.PrivateFiles;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the agent owes its server, on disk, in order: one file per entry ({@code 000000000042.json}),
 * each written to a temporary sibling, forced to the disk and renamed over its name, then the
 * directory forced, so an entry either exists whole or not at all. A crash between the write and
 * the rename leaves only a {@code .tmp} file, which {@link #open} deletes: that entry was never
 * acknowledged to its sender.
 *
 * <p>Log entries carry a {@code seq}, the server's idempotency key for a batch of one test. A log
 * entry that the drain has not taken yet takes further lines of the same test (up to
 * {@link #MAX_BATCH_LINES}), rewritten under the same name and seq; once taken, an entry never
 * changes again, so a seq is only ever sent with one list of lines and a retried batch adds no
 * duplicate. Entries found on disk at {@link #open} count as taken (an earlier process may have sent
 * them). Numbers, and so seqs, never repeat: they are reserved in blocks in {@code counter}.
 *
 * <p>Blocking and thread-safe: call it from a worker.
 */
public final class Spool {

  public static final int MAX_BATCH_LINES = 200;
  private static final long RESERVE = 1000;
  private static final String COUNTER = "counter";
  private static final Logger LOG = LoggerFactory.getLogger(Spool.class);

  /** What an entry is delivered as. */
  public enum Kind {
    LOGS, STATUS, RESULT;

    String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    static Kind parse(String value) {
      return Kind.valueOf(value.toUpperCase(java.util.Locale.ROOT));
    }
  }

  /** One entry as stored: its number (its place in the order), kind, test, log seq and body. */
  public record Entry(long number, Kind kind, String testId, long seq, JsonObject body) {

    /** The lines of a log entry. */
    public List<String> lines() {
      return linesOf(body);
    }

    JsonObject toJson() {
      return new JsonObject().put("number", number).put("kind", kind.wireName()).put("test_id", testId)
          .put("seq", seq).put("body", body);
    }

    static Entry fromJson(JsonObject json) {
      Long number = Fields.optLong(json, "number", null, 0, Long.MAX_VALUE);
      JsonObject body = Fields.optObject(json, "body");
      if (number == null || body == null) {
        throw new BadMessage("A spool entry has a number and a body");
      }
      return new Entry(number, Kind.parse(Fields.requireString(json, "kind")), Fields.optString(json, "test_id", null),
          Fields.optLong(json, "seq", 0L, 0, Long.MAX_VALUE), body);
    }
  }

  /** The lines of a log body; none when it has none. */
  private static List<String> linesOf(JsonObject body) {
    List<String> lines = Fields.optStringList(body, "lines");
    return lines == null ? List.of() : lines;
  }

  private final Path dir;
  private final TreeMap<Long, Entry> entries = new TreeMap<>();
  /** Numbers the drain has taken (or an earlier process may have sent): never rewritten. */
  private final java.util.Set<Long> taken = new java.util.HashSet<>();
  /** When each open (not yet taken) entry was first written, System.nanoTime. */
  private final Map<Long, Long> openedAt = new java.util.HashMap<>();
  private long next;
  private long reservedUpTo;

  private Spool(Path dir) {
    this.dir = dir;
  }

  /** Opens the spool under {@code dir} (created owner-only), dropping half-written entries. */
  public static Spool open(Path dir) {
    Spool spool = new Spool(dir);
    spool.load();
    return spool;
  }

  public Path dir() {
    return dir;
  }

  private synchronized void load() {
    PrivateFiles.createMissing(dir);
    long highest = 0;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.endsWith(".tmp")) {
          Files.deleteIfExists(file); // a write that never reached its rename: never acknowledged
          continue;
        }
        if (!name.endsWith(".json")) {
          continue;
        }
        try {
          Entry entry = Entry.fromJson(new JsonObject(Files.readString(file, StandardCharsets.UTF_8)));
          entries.put(entry.number(), entry);
          taken.add(entry.number());
          highest = Math.max(highest, entry.number());
        } catch (RuntimeException e) {
          // cannot happen through rename; kept aside for a person rather than sent or lost silently
          Path aside = file.resolveSibling(name + ".unreadable");
          Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
          LOG.error("Spool entry {} is unreadable ({}); moved to {}", file, e.getMessage(), aside);
        }
      }
      Path counter = dir.resolve(COUNTER);
      long reserved = Files.exists(counter) ? Long.parseLong(Files.readString(counter).trim()) : 0;
      next = Math.max(highest, reserved) + 1;
      reservedUpTo = next - 1;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read the spool " + dir, e);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("The spool counter in " + dir + " is not a number", e);
    }
  }

  /**
   * Stores {@code body} durably and returns the entries it went into: log lines join the open log
   * entry of the same test at the tail when there is room, and are split at {@link #MAX_BATCH_LINES}.
   */
  public synchronized List<Entry> append(Kind kind, String testId, JsonObject body) {
    if (kind != Kind.LOGS) {
      return List.of(write(new Entry(allocate(), kind, testId, 0, body.copy())));
    }
    List<Entry> out = new ArrayList<>();
    List<String> pending = new ArrayList<>(linesOf(body));
    Map.Entry<Long, Entry> tail = entries.lastEntry();
    if (tail != null && !taken.contains(tail.getKey()) && tail.getValue().kind() == Kind.LOGS
        && java.util.Objects.equals(tail.getValue().testId(), testId)) {
      Entry open = tail.getValue();
      List<String> lines = new ArrayList<>(open.lines());
      int room = MAX_BATCH_LINES - lines.size();
      if (room > 0 && !pending.isEmpty()) {
        int n = Math.min(room, pending.size());
        lines.addAll(pending.subList(0, n));
        JsonObject merged = open.body().copy().put("lines", new JsonArray(new ArrayList<Object>(lines)));
        pending.subList(0, n).clear();
        out.add(write(new Entry(open.number(), Kind.LOGS, testId, open.seq(), merged)));
      }
    }
    while (!pending.isEmpty() || out.isEmpty()) {
      int n = Math.min(MAX_BATCH_LINES, pending.size());
      JsonObject chunk = body.copy().put("lines", new JsonArray(new ArrayList<>(pending.subList(0, n))));
      pending.subList(0, n).clear();
      long number = allocate();
      out.add(write(new Entry(number, Kind.LOGS, testId, number, chunk)));
      if (n == 0) {
        break;
      }
    }
    return out;
  }

  /** The first entry, left open for more lines (not taken). */
  public synchronized Optional<Entry> peek() {
    Map.Entry<Long, Entry> head = entries.firstEntry();
    return head == null ? Optional.empty() : Optional.of(head.getValue());
  }

  /** Whether the first entry is still open and was written less than {@code lingerNanos} ago. */
  public synchronized long headOpenForNanos(long lingerNanos) {
    Map.Entry<Long, Entry> head = entries.firstEntry();
    if (head == null || taken.contains(head.getKey()) || head.getValue().kind() != Kind.LOGS
        || head.getValue().lines().size() >= MAX_BATCH_LINES
        || entries.size() > 1) {
      return 0;
    }
    long age = System.nanoTime() - openedAt.getOrDefault(head.getKey(), 0L);
    return Math.max(0, lingerNanos - age);
  }

  /** Takes the first entry for delivery: from now on it never changes. */
  public synchronized Optional<Entry> take() {
    Map.Entry<Long, Entry> head = entries.firstEntry();
    if (head == null) {
      return Optional.empty();
    }
    taken.add(head.getKey());
    openedAt.remove(head.getKey());
    return Optional.of(head.getValue());
  }

  /** Deletes a delivered (or refused) entry. */
  public synchronized void remove(long number) {
    entries.remove(number);
    taken.remove(number);
    openedAt.remove(number);
    try {
      Files.deleteIfExists(file(number));
      force(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not delete spool entry " + number, e);
    }
  }

  public synchronized int size() {
    return entries.size();
  }

  public synchronized List<Entry> entries() {
    return List.copyOf(entries.values());
  }

  private long allocate() {
    if (next > reservedUpTo) {
      reservedUpTo = next + RESERVE - 1;
      writeDurably(dir.resolve(COUNTER), Long.toString(reservedUpTo));
    }
    return next++;
  }

  private Entry write(Entry entry) {
    writeDurably(file(entry.number()), entry.toJson().encode());
    entries.put(entry.number(), entry);
    openedAt.putIfAbsent(entry.number(), System.nanoTime());
    return entry;
  }

  private Path file(long number) {
    return dir.resolve(String.format("%012d.json", number));
  }

  /** Temporary sibling, fsync, atomic rename, fsync of the directory. */
  static void writeDurably(Path target, String content) {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(true);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write " + tmp, e);
    }
    try {
      try {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      force(target.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException("Could not store " + target, e);
    }
  }

  private static void force(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // some file systems refuse to open a directory for fsync; the rename itself is still atomic
      LOG.debug("Could not force directory {}: {}", directory, e.getMessage());
    }
  }
}
