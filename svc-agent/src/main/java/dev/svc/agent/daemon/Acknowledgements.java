package dev.svc.agent.daemon;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The commands to name in the next heartbeat's {@code acked_command_ids}, and the last
 * {@link #REMEMBERED} ones the engine accepted (a command the server sends again is acknowledged
 * again without asking the engine). In memory only: the engine's journal is the agent's one durable
 * record of accepted commands. After a restart the server sends an unacknowledged command again;
 * the engine, which knows it from its journal, accepts it without running it twice, and it is
 * acknowledged then. Thread-safe.
 */
final class Acknowledgements {

  static final int REMEMBERED = 1000;

  private final LinkedHashSet<String> seen = new LinkedHashSet<>();
  private final LinkedHashSet<String> pending = new LinkedHashSet<>();

  /** Whether the engine already accepted this command (then it is only acknowledged again). */
  synchronized boolean seen(String commandId) {
    return seen.contains(commandId);
  }

  /** Records an accepted command (or one the server sent again) as to be acknowledged. */
  synchronized void accepted(String commandId) {
    seen.add(commandId);
    pending.add(commandId);
    while (seen.size() > REMEMBERED) {
      seen.remove(seen.iterator().next());
    }
  }

  /** The ids the next heartbeat acknowledges. */
  synchronized List<String> pending() {
    return new ArrayList<>(pending);
  }

  /** A heartbeat carrying these ids was answered: the server has recorded them. */
  synchronized void acknowledged(List<String> ids) {
    pending.removeAll(ids);
  }
}
