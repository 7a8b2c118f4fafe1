package dev.svc.agent.daemon;

import dev.svc.core.home.PrivateFiles;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The server's commands this agent has handed to its engine, on disk: the server repeats a command
 * in every heartbeat until the agent names it in {@code acked_command_ids}, so an agent that
 * restarts between accepting a command and the server's answer must remember it, or it would run
 * it twice. {@code pending} are the ids still to acknowledge; {@code seen} the last
 * {@link #REMEMBERED} accepted ids. Blocking and thread-safe: call it from a worker.
 */
final class CommandLedger {

  static final int REMEMBERED = 1000;

  private final Path file;
  private final LinkedHashSet<String> seen = new LinkedHashSet<>();
  private final LinkedHashSet<String> pending = new LinkedHashSet<>();

  CommandLedger(Path file) {
    this.file = file;
    if (Files.isRegularFile(file)) {
      try {
        JsonObject json = new JsonObject(Files.readString(file));
        json.getJsonArray("seen", new JsonArray()).forEach(id -> seen.add(String.valueOf(id)));
        json.getJsonArray("pending", new JsonArray()).forEach(id -> pending.add(String.valueOf(id)));
      } catch (IOException e) {
        throw new UncheckedIOException("Could not read " + file, e);
      } catch (RuntimeException e) {
        throw new IllegalStateException(file + " is not the command ledger svc-agent writes: " + e.getMessage(), e);
      }
    }
  }

  /** Whether the engine already accepted this command (then it is only acknowledged again). */
  synchronized boolean seen(String commandId) {
    return seen.contains(commandId);
  }

  /** Records an accepted command (or one the server sent again) as to be acknowledged. */
  synchronized void accepted(String commandId) {
    boolean changed = seen.add(commandId) | pending.add(commandId);
    while (seen.size() > REMEMBERED) {
      seen.remove(seen.iterator().next());
    }
    if (changed) {
      save();
    }
  }

  /** The ids the next heartbeat acknowledges. */
  synchronized List<String> pending() {
    return new ArrayList<>(pending);
  }

  /** A heartbeat carrying these ids was answered: the server has recorded them. */
  synchronized void acknowledged(List<String> ids) {
    if (pending.removeAll(ids)) {
      save();
    }
  }

  private void save() {
    PrivateFiles.write(file, new JsonObject().put("seen", new JsonArray(new ArrayList<>(seen)))
        .put("pending", new JsonArray(new ArrayList<>(pending))).encode());
  }
}
