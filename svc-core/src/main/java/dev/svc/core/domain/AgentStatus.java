package dev.svc.core.domain;

import dev.svc.core.WireNames;
import java.util.Locale;
import java.util.Optional;

/**
 * Agent states. Agents report idle, running or error in their heartbeats; the server records
 * online on registration and offline when heartbeats stop.
 */
public enum AgentStatus {
  ONLINE,
  IDLE,
  RUNNING,
  ERROR,
  OFFLINE;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** A status an agent may report itself in a heartbeat. */
  public boolean isReportable() {
    return this == IDLE || this == RUNNING || this == ERROR;
  }

  public static Optional<AgentStatus> parse(String value) {
    return WireNames.parseExact(values(), value, AgentStatus::wireName);
  }
}
