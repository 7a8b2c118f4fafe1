package dev.svc.agent.logs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The recent output of the last few commands, for {@code /api/logs/<command_id>}: at most
 * {@code maxLines} lines per command (the oldest go first) and {@code maxCommands} commands (the
 * least recently written go first), each with its live listeners and whether its test has ended.
 * Used on one event loop only.
 */
final class CommandLogs {

  private final int maxLines;
  private final int maxCommands;
  private final LinkedHashMap<String, Log> logs;

  CommandLogs(int maxLines, int maxCommands) {
    this.maxLines = maxLines;
    this.maxCommands = maxCommands;
    this.logs = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Log> eldest) {
        return size() > CommandLogs.this.maxCommands && eldest.getValue().listeners.isEmpty();
      }
    };
  }

  /** One command's lines, listeners and end. */
  static final class Log {
    private final ArrayDeque<String> lines = new ArrayDeque<>();
    private final List<Listener> listeners = new ArrayList<>();
    private boolean ended;

    List<String> lines() {
      return new ArrayList<>(lines);
    }

    boolean ended() {
      return ended;
    }
  }

  /** Someone following a command: each new line, then the end. */
  interface Listener {
    void line(String line);

    void end();
  }

  Log log(String commandId) {
    return logs.computeIfAbsent(commandId, id -> new Log());
  }

  boolean knows(String commandId) {
    return logs.containsKey(commandId);
  }

  void append(String commandId, String line) {
    Log log = log(commandId);
    log.lines.addLast(line);
    while (log.lines.size() > maxLines) {
      log.lines.removeFirst();
    }
    for (Listener listener : List.copyOf(log.listeners)) {
      listener.line(line);
    }
  }

  void end(String commandId) {
    Log log = log(commandId);
    log.ended = true;
    for (Listener listener : List.copyOf(log.listeners)) {
      listener.end();
    }
    log.listeners.clear();
  }

  /** Replays the buffered lines to {@code listener}, then follows the command (or ends at once when it has ended). */
  void follow(String commandId, Listener listener) {
    Log log = log(commandId);
    log.lines.forEach(listener::line);
    if (log.ended) {
      listener.end();
    } else {
      log.listeners.add(listener);
    }
  }

  void unfollow(String commandId, Listener listener) {
    Log log = logs.get(commandId);
    if (log != null) {
      log.listeners.remove(listener);
    }
  }

  int size() {
    return logs.size();
  }
}
