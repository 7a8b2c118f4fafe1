package dev.svc.server.store;

import dev.svc.core.Timestamps;
import dev.svc.core.domain.AgentSettings;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a heartbeat needs, in memory: every agent's identity (id, name, token hash, test or real,
 * deleted, status), its latest heartbeat, its settings, and whether it may have queued work or
 * unacknowledged commands. The database stays the record: all of it is loaded at start and kept
 * current by the stores and transitions that change it, once their writes have committed. A
 * heartbeat that changes nothing is kept here and written behind in batches ({@link #unwritten});
 * a change of status, a dispatch or a command goes to the database at once.
 *
 * <p>Safe to read and update from any thread (the HTTP event loop, the dispatcher's, workers).
 */
public final class LiveFleet {

  /** An agent as a heartbeat sees it. */
  public record Agent(String id, String name, String tokenHash, boolean testAgent, boolean deleted, String status) {
  }

  /** A heartbeat's metrics ({@code status, current_task, gpu_utilization_pct, …}) and when it came. */
  public record Beat(JsonObject metrics, Instant at) {
  }

  /** What the other nodes of a cluster must read again after a change here committed. */
  public enum Change {
    /** The agent's row: registration, rename, token, status, deletion. */
    AGENT,
    /** The agent's revoked client certificates. */
    REVOKED,
    /** The agent's settings. */
    SETTINGS,
    /** The agent may have a queued test. */
    WORK,
    /** The agent may have a command to deliver. */
    COMMANDS
  }

  /** Told of every change made through this fleet (a cluster's nodes pass them on to each other). */
  @FunctionalInterface
  public interface Peers {
    void changed(Change change, String agentId, String name);
  }

  private static final String AGENTS = "SELECT id, name, token_hash, is_test_agent, deleted_at, status, current_task,"
      + " gpu_utilization_pct, gpu_memory_used_gb, storage_gb_free, uptime_s, last_heartbeat_at FROM agents";
  private static final String ONE_AGENT = AGENTS + " WHERE id = ?";
  private static final String AGENTS_WITH_TOKEN = AGENTS + " WHERE token_hash = ?";
  private static final String REVOKED = "SELECT fingerprint FROM agent_certificates WHERE revoked_at IS NOT NULL";
  private static final String REVOKED_OF_AGENT = REVOKED + " AND (agent_id = ? OR agent_name = ?)";
  private static final String SETTINGS = "SELECT agent_id, key, value FROM agent_settings";
  private static final String SETTINGS_OF_AGENT = SETTINGS + " WHERE agent_id = ?";
  /** Agents with a test to hand out, or one handed out whose run_test may not have arrived. */
  private static final String AGENTS_WITH_QUEUED =
      "SELECT DISTINCT agent_id FROM quick_tests WHERE status IN ('queued', 'dispatched')";
  private static final String AGENTS_WITH_COMMANDS = "SELECT DISTINCT agent_id FROM commands WHERE acked_at IS NULL";

  private final Map<String, Agent> byId = new ConcurrentHashMap<>();
  private final Map<String, String> liveIdByName = new ConcurrentHashMap<>();
  private final Map<String, Integer> tokenHashes = new ConcurrentHashMap<>();
  private final Map<String, Integer> liveTokenHashes = new ConcurrentHashMap<>();
  /** Fingerprints of the client certificates revoked when their agent was deleted or its token rotated. */
  private final Set<String> revokedCertificates = ConcurrentHashMap.newKeySet();
  private final Map<String, Beat> beats = new ConcurrentHashMap<>();
  private final Set<String> unwritten = ConcurrentHashMap.newKeySet();
  private final Map<String, Map<String, String>> settings = new ConcurrentHashMap<>();
  private volatile Peers peers = (change, id, name) -> { };
  /** Whether other nodes change the fleet too: then a token this node has not heard of may be new. */
  private volatile boolean shared;
  private final Marks work = new Marks(id -> peers.changed(Change.WORK, id, null));
  private final Marks commands = new Marks(id -> peers.changed(Change.COMMANDS, id, null));
  private final Instant startedAt = Instant.now();

  /** Tells {@code peers} of every change made from now on (not of those applied through {@link #apply}). */
  public void tellPeers(Peers peers) {
    this.peers = peers;
    this.shared = true;
  }

  /** Applies a change another node made: reads what it touched again, without telling anyone. */
  public Future<Void> apply(Pool pool, Change change, String agentId, String name) {
    return switch (change) {
      case AGENT -> reread(pool, agentId);
      case REVOKED -> rereadRevoked(pool, agentId, name);
      case SETTINGS -> Sql.rows(pool, SETTINGS_OF_AGENT, Tuple.of(agentId), StoredSetting.class).map(rows -> {
        Map<String, String> stored = new HashMap<>();
        rows.forEach(r -> stored.put(r.key(), r.value()));
        settings.put(agentId, AgentSettings.effective(stored));
        return null;
      });
      case WORK -> {
        work.markHere(agentId);
        yield Future.succeededFuture();
      }
      case COMMANDS -> {
        commands.markHere(agentId);
        yield Future.succeededFuture();
      }
    };
  }

  /**
   * Loads every agent (deleted ones for their token hashes, which stay revoked), the revoked
   * certificates, all settings, and who has queued work or commands.
   */
  public Future<Void> load(Pool pool) {
    return Sql.rows(pool, AGENTS, Tuple.tuple(), StoredAgent.class).compose(rows -> {
      rows.forEach(this::put);
      return Sql.strings(pool, REVOKED, Tuple.tuple());
    }).compose(fingerprints -> {
      revokedCertificates.addAll(fingerprints);
      return Sql.rows(pool, SETTINGS, Tuple.tuple(), StoredSetting.class);
    }).compose(rows -> {
      Map<String, Map<String, String>> stored = new HashMap<>();
      rows.forEach(r -> stored.computeIfAbsent(r.agentId(), k -> new HashMap<>()).put(r.key(), r.value()));
      stored.forEach((id, values) -> settings.put(id, AgentSettings.effective(values)));
      return Sql.strings(pool, AGENTS_WITH_QUEUED, Tuple.tuple());
    }).compose(ids -> {
      ids.forEach(work::markHere);
      return Sql.strings(pool, AGENTS_WITH_COMMANDS, Tuple.tuple());
    }).map(ids -> {
      ids.forEach(commands::markHere);
      return null;
    });
  }

  /** Reads one agent's row again after a write to it committed (registration, rename, token, status, deletion). */
  public Future<Void> refresh(Pool pool, String id) {
    return reread(pool, id).onSuccess(v -> peers.changed(Change.AGENT, id, null));
  }

  private Future<Void> reread(Pool pool, String id) {
    return Sql.row(pool, ONE_AGENT, Tuple.of(id), StoredAgent.class).map(row -> {
      row.ifPresent(this::put);
      return null;
    });
  }

  /** Reads an agent's revoked certificates after its deletion or a token rotation committed. */
  public Future<Void> refreshRevoked(Pool pool, String id, String name) {
    return rereadRevoked(pool, id, name).onSuccess(v -> peers.changed(Change.REVOKED, id, name));
  }

  private Future<Void> rereadRevoked(Pool pool, String id, String name) {
    return Sql.strings(pool, REVOKED_OF_AGENT, Tuple.of(id, name)).map(fingerprints -> {
      revokedCertificates.addAll(fingerprints);
      return null;
    });
  }

  /** Holds {@code row} as the agent's current state (package-private for tests). */
  synchronized void put(StoredAgent row) {
    Agent agent = new Agent(row.id(), row.name(), row.tokenHash(), row.isTestAgent(), row.deleted(), row.status());
    Agent before = byId.put(agent.id(), agent);
    if (before != null && !before.deleted() && agent.id().equals(liveIdByName.get(before.name()))) {
      liveIdByName.remove(before.name());
    }
    if (!agent.deleted()) {
      liveIdByName.put(agent.name(), agent.id());
    }
    // counted in before the old row is counted out, live before all: a token checked meanwhile on
    // another thread (tokenState takes no lock) is never missing from the live ones while its agent lives
    count(liveTokenHashes, agent.deleted() ? null : agent.tokenHash(), 1);
    count(tokenHashes, agent.tokenHash(), 1);
    if (before != null) {
      count(liveTokenHashes, before.deleted() ? null : before.tokenHash(), -1);
      count(tokenHashes, before.tokenHash(), -1);
    }
    Instant at = Timestamps.parse(row.lastHeartbeatAt()).orElse(null);
    if (at != null) {
      Beat held = beats.get(agent.id());
      if (held == null || held.at().isBefore(at)) {
        JsonObject metrics = new JsonObject().put("status", row.status()).put("current_task", row.currentTask())
            .put("gpu_utilization_pct", row.gpuUtilizationPct()).put("gpu_memory_used_gb", row.gpuMemoryUsedGb())
            .put("storage_gb_free", row.storageGbFree()).put("uptime_s", row.uptimeS());
        beats.put(agent.id(), new Beat(metrics, at));
      }
    }
  }

  private static void count(Map<String, Integer> counts, String hash, int by) {
    if (hash != null) {
      counts.compute(hash, (h, n) -> {
        int now = (n == null ? 0 : n) + by;
        return now <= 0 ? null : now;
      });
    }
  }

  /** A live agent by id, or by name when no agent has that id (the old agent's fallback). */
  public Optional<Agent> liveByIdOrName(String idOrName) {
    Agent agent = byId.get(idOrName);
    if (agent != null && !agent.deleted()) {
      return Optional.of(agent);
    }
    String id = liveIdByName.get(idOrName);
    return Optional.ofNullable(id == null ? null : byId.get(id)).filter(a -> !a.deleted());
  }

  /**
   * What a token (by its hash) is: a live agent's, a deleted agent's (revoked for good), or neither.
   * Without the lock, its two reads can fall on either side of a new agent's arrival (absent from
   * the live tokens, then present among all): a live token would be refused as revoked. So a
   * "revoked" answer is read again under the lock.
   */
  public TokenState tokenState(String hash) {
    TokenState seen = unlockedTokenState(hash);
    if (seen != TokenState.REVOKED) {
      return seen;
    }
    synchronized (this) {
      return unlockedTokenState(hash);
    }
  }

  private TokenState unlockedTokenState(String hash) {
    if (liveTokenHashes.containsKey(hash)) {
      return TokenState.LIVE;
    }
    return tokenHashes.containsKey(hash) ? TokenState.REVOKED : TokenState.UNKNOWN;
  }

  /**
   * What a token is, as {@link #tokenState(String)} says; on a node of a cluster, a token this node
   * has not heard of is looked up in the database first, since its agent may have been provisioned
   * through another node a moment ago and that node's message may not have arrived yet.
   */
  public Future<TokenState> tokenState(Pool pool, String hash) {
    TokenState known = tokenState(hash);
    if (known != TokenState.UNKNOWN || !shared) {
      return Future.succeededFuture(known);
    }
    return Sql.rows(pool, AGENTS_WITH_TOKEN, Tuple.of(hash), StoredAgent.class).map(rows -> {
      rows.forEach(this::put);
      return tokenState(hash);
    });
  }

  /** Whether the client certificate with this SHA-256 fingerprint was revoked. */
  public boolean certificateRevoked(String fingerprint) {
    return revokedCertificates.contains(fingerprint);
  }

  /** Whether some live agent holds the token with this hash. */
  public boolean liveTokenHash(String hash) {
    return liveTokenHashes.containsKey(hash);
  }

  /** How many agents (deleted ones left out) are in each status, from memory: what the metrics show. */
  public Map<String, Long> statusCounts() {
    Map<String, Long> out = new HashMap<>();
    for (Agent agent : byId.values()) {
      if (!agent.deleted() && agent.status() != null) {
        out.merge(agent.status(), 1L, Long::sum);
      }
    }
    return out;
  }

  // --- heartbeats ---

  /** The agent's latest heartbeat (stored or not), if it ever sent one or registered. */
  public Optional<Beat> beat(String id) {
    return Optional.ofNullable(beats.get(id));
  }

  /** A heartbeat already written to the database (with its status when that changed). */
  public void written(String id, JsonObject metrics, Instant at) {
    keepLatest(id, new Beat(metrics, at));
    Agent before = byId.get(id);
    Agent after = byId.computeIfPresent(id, (k, a) -> new Agent(a.id(), a.name(), a.tokenHash(), a.testAgent(),
        a.deleted(), metrics.getString("status", a.status())));
    if (before != null && after != null && !java.util.Objects.equals(before.status(), after.status())) {
      peers.changed(Change.AGENT, id, null);
    }
  }

  /** A heartbeat kept for the next batch: it changed nothing anyone is told about. */
  public void unwritten(String id, JsonObject metrics, Instant at) {
    keepLatest(id, new Beat(metrics, at));
    unwritten.add(id);
  }

  private void keepLatest(String id, Beat beat) {
    beats.merge(id, beat, (held, given) -> given.at().isBefore(held.at()) ? held : given);
  }

  /** Takes the agents whose latest heartbeat is not written yet, with that heartbeat. */
  public Map<String, Beat> takeUnwritten() {
    Map<String, Beat> out = new HashMap<>();
    for (String id : new ArrayList<>(unwritten)) {
      unwritten.remove(id);
      Beat beat = beats.get(id);
      if (beat != null) {
        out.put(id, beat);
      }
    }
    return out;
  }

  /** Puts back heartbeats whose batch failed, to be written by the next one. */
  public void notWritten(Set<String> ids) {
    unwritten.addAll(ids);
  }

  /**
   * When the agent was last heard of, for deciding that it is silent: its latest heartbeat, stored
   * or not, and never before this server started. A server that just (re)started cannot know what
   * the agent sent while it was down or what it had not written yet, so every agent gets a whole
   * stale window from the start.
   */
  public Instant lastHeard(String id, String storedLastHeartbeat) {
    Instant heard = Timestamps.parse(storedLastHeartbeat).orElse(Instant.EPOCH);
    Beat beat = beats.get(id);
    if (beat != null && beat.at().isAfter(heard)) {
      heard = beat.at();
    }
    return heard.isBefore(startedAt) ? startedAt : heard;
  }

  /**
   * An agent row as the API shows it: the latest heartbeat's metrics and time when they are newer
   * than what is written (its status is always the row's: status changes are written at once).
   */
  public StoredAgent withLatestBeat(StoredAgent row) {
    Beat beat = row.id() == null ? null : beats.get(row.id());
    if (beat == null) {
      return row;
    }
    Instant stored = Timestamps.parse(row.lastHeartbeatAt()).orElse(Instant.EPOCH);
    return beat.at().isAfter(stored) ? row.withBeat(beat.metrics(), Timestamps.format(beat.at())) : row;
  }

  // --- settings ---

  /** Effective settings: defaults overlaid with what is stored, every key present. */
  public Map<String, String> settings(String id) {
    Map<String, String> held = settings.get(id);
    return held != null ? held : AgentSettings.effective(Map.of());
  }

  void settingsStored(String id, Map<String, String> effective) {
    settings.put(id, Map.copyOf(effective));
    peers.changed(Change.SETTINGS, id, null);
  }

  // --- queued work and commands ---

  /** Whether an agent may have a queued test: marked when one was queued or requeued (committed). */
  public Marks work() {
    return work;
  }

  /** Whether an agent may have commands to deliver: marked when one was stored (committed). */
  public Marks commands() {
    return commands;
  }

  /**
   * A per-agent flag that a reader may clear only if nobody set it since the reader looked: the
   * setter counts up after its write commits, the reader clears up to the count it read before
   * querying. A set that races a clear is never lost.
   */
  public static final class Marks {
    private final Map<String, Mark> marks = new ConcurrentHashMap<>();
    private final java.util.function.Consumer<String> marked;

    Marks(java.util.function.Consumer<String> marked) {
      this.marked = marked;
    }

    /** Tells the agent's next heartbeats to look (after the write that calls for it committed), on every node. */
    public void mark(String id) {
      if (id != null) {
        markHere(id);
        marked.accept(id);
      }
    }

    void markHere(String id) {
      marks.computeIfAbsent(id, k -> new Mark()).count.incrementAndGet();
    }

    /** Read before looking; pass it to {@link #clear} when the lookup found nothing. */
    public long version(String id) {
      Mark mark = marks.get(id);
      return mark == null ? 0 : mark.count.get();
    }

    /** Marked and not found empty since. */
    public boolean isSet(String id) {
      Mark mark = marks.get(id);
      return mark != null && mark.count.get() > mark.cleared;
    }

    /** Nothing was found when looked for after {@code version}: stop looking until marked again. */
    public void clear(String id, long version) {
      Mark mark = marks.get(id);
      if (mark != null) {
        synchronized (mark) {
          mark.cleared = Math.max(mark.cleared, version);
        }
      }
    }
  }

  private static final class Mark {
    final AtomicLong count = new AtomicLong();
    volatile long cleared;
  }
}
