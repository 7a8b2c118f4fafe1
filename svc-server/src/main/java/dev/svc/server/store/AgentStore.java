package dev.svc.server.store;

import dev.svc.core.Timestamps;
import dev.svc.core.domain.AgentSettings;
import dev.svc.core.domain.AgentStatus;
import dev.svc.core.protocol.Registration;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Agents, their tokens, heartbeat metrics and per-agent settings. Deleted agents are kept for history.
 * Every write here updates the {@link LiveFleet} once it is stored; a write made in a caller's
 * transaction ({@link #delete}, {@link #moveStatus}) is followed by {@link #refresh} after the commit.
 * Rows read here carry the latest heartbeat, written or not.
 */
public final class AgentStore {

  private static final String LIVE = " deleted_at IS NULL ";
  private static final String BY_ID = "SELECT * FROM agents WHERE id = ? AND" + LIVE;
  private static final String BY_ID_ANY = "SELECT * FROM agents WHERE id = ?";
  private static final String BY_NAME = "SELECT * FROM agents WHERE name = ? AND" + LIVE + "ORDER BY registered_at LIMIT 1";
  private static final String ALL = "SELECT * FROM agents WHERE" + LIVE + "ORDER BY name, id";
  private static final String INSERT = "INSERT INTO agents (id, name, hostname, port, gpu_info, gpu_count, cpu_info, cpu_arch,"
      + " ram_gb, environment_type, fingerprint, agent_version, hardware_details, capabilities, status, is_test_agent,"
      + " token_hash, token_prefix, registered_at, last_heartbeat_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  private static final String UPDATE_REGISTRATION = "UPDATE agents SET hostname = ?, port = ?, gpu_info = ?, gpu_count = ?,"
      + " cpu_info = ?, cpu_arch = ?, ram_gb = ?, environment_type = ?, fingerprint = ?, agent_version = ?,"
      + " hardware_details = ?, capabilities = ?, status = ?, last_heartbeat_at = ? WHERE id = ?";
  private static final String BIND_TOKEN = "UPDATE agents SET token_hash = ?, token_prefix = ? WHERE id = ?";
  /** Single use: a token obtains one certificate; the claim fails when this token already obtained one. */
  private static final String CLAIM_ENROLMENT = "UPDATE agents SET enrolled_token_hash = token_hash WHERE id = ? AND"
      + LIVE + "AND token_hash = ? AND (enrolled_token_hash IS NULL OR enrolled_token_hash <> token_hash)";
  private static final String RECORD_CERTIFICATE = "INSERT INTO agent_certificates (fingerprint, agent_id, agent_name,"
      + " issued_at, not_after) VALUES (?, ?, ?, ?, ?)";
  /** An agent's certificates, and those issued for its name before it had a row. */
  private static final String REVOKE_CERTIFICATES = "UPDATE agent_certificates SET revoked_at = ? WHERE revoked_at IS NULL"
      + " AND (agent_id = ? OR (agent_id IS NULL AND agent_name = ?))";
  private static final String HEARTBEAT = "UPDATE agents SET status = ?, current_task = ?, gpu_utilization_pct = ?,"
      + " gpu_memory_used_gb = ?, storage_gb_free = ?, uptime_s = ?, last_heartbeat_at = ? WHERE id = ?";
  private static final String SILENT = "SELECT * FROM agents WHERE" + LIVE + "AND is_test_agent = 0"
      + " AND status NOT IN ('offline', 'provisioned') AND last_heartbeat_at < ?";
  private static final String SET_STATUS = "UPDATE agents SET status = ? WHERE id = ? AND status = ?";
  private static final String PATCH = "UPDATE agents SET name = ?, notes = ?, tags = ? WHERE id = ?";
  private static final String DELETE = "UPDATE agents SET deleted_at = ?, status = 'deleted' WHERE id = ? AND" + LIVE;
  private static final String SETTINGS = "SELECT key, value FROM agent_settings WHERE agent_id = ?";
  private static final String DELETE_SETTING = "DELETE FROM agent_settings WHERE agent_id = ? AND key = ?";
  private static final String INSERT_SETTING = "INSERT INTO agent_settings (agent_id, key, value) VALUES (?, ?, ?)";

  private static final String BEATS = "UPDATE agents SET gpu_utilization_pct = ?, gpu_memory_used_gb = ?,"
      + " storage_gb_free = ?, uptime_s = ?, last_heartbeat_at = ? WHERE id = ? AND" + LIVE
      + "AND (last_heartbeat_at IS NULL OR last_heartbeat_at < ?)";

  private final Pool pool;
  private final LiveFleet fleet;

  public AgentStore(Pool pool, LiveFleet fleet) {
    this.pool = pool;
    this.fleet = fleet;
  }

  public LiveFleet fleet() {
    return fleet;
  }

  /** Reads an agent's revoked certificates into the {@link LiveFleet}, after {@link #revokeCertificates} committed. */
  public Future<Void> refreshRevoked(String id, String name) {
    return fleet.refreshRevoked(pool, id, name);
  }

  /** Reads an agent into the {@link LiveFleet} again, after a write in a caller's transaction committed. */
  public Future<Void> refresh(String id) {
    return fleet.refresh(pool, id);
  }

  public Future<Optional<StoredAgent>> byId(String id) {
    return Sql.row(pool, BY_ID, Tuple.of(id), StoredAgent.class).map(found -> found.map(fleet::withLatestBeat));
  }

  /** Also finds deleted agents, for history views. */
  public Future<Optional<StoredAgent>> byIdIncludingDeleted(String id) {
    return Sql.row(pool, BY_ID_ANY, Tuple.of(id), StoredAgent.class).map(found -> found.map(fleet::withLatestBeat));
  }

  /** Whether some live agent holds the token with this hash. */
  public Future<Boolean> tokenHashExists(String hash) {
    return Future.succeededFuture(fleet.liveTokenHash(hash));
  }

  /** Whether the token with this hash is a live agent's, a deleted agent's (revoked) or no agent's. */
  public Future<TokenState> tokenState(String hash) {
    return fleet.tokenState(pool, hash);
  }

  /** Whether the client certificate with this fingerprint was revoked (its agent deleted or its token rotated). */
  public boolean certificateRevoked(String fingerprint) {
    return fleet.certificateRevoked(fingerprint);
  }

  /**
   * Records a certificate the server issued ({@code agentId} null: for a name no agent has yet), in
   * one transaction with the enrolment's claim when {@code enrolmentTokenHash} is set: the claim
   * fails, and nothing is recorded, when that token has already obtained a certificate. False then.
   */
  public Future<Boolean> recordCertificate(String agentId, String agentName, String enrolmentTokenHash,
      String fingerprint, Instant notAfter) {
    return pool.withTransaction(conn -> {
      Future<Boolean> claimed = enrolmentTokenHash == null ? Future.succeededFuture(true)
          : Sql.update(conn, CLAIM_ENROLMENT, Tuple.of(agentId, enrolmentTokenHash)).map(n -> n == 1);
      return claimed.compose(ok -> !ok ? Future.succeededFuture(false)
          : Sql.update(conn, RECORD_CERTIFICATE, Tuple.of(fingerprint, agentId, agentName, Timestamps.now(),
              Timestamps.format(notAfter))).map(true));
    });
  }

  /**
   * Revokes every certificate the server issued to an agent (or to its name before it had a row),
   * in the caller's transaction; {@link #refreshRevoked} tells the {@link LiveFleet} once committed.
   */
  public Future<Void> revokeCertificates(SqlClient client, String agentId, String agentName) {
    return Sql.update(client, REVOKE_CERTIFICATES, Tuple.of(Timestamps.now(), agentId, agentName)).mapEmpty();
  }

  public Future<Optional<StoredAgent>> byName(String name) {
    return Sql.row(pool, BY_NAME, Tuple.of(name), StoredAgent.class).map(found -> found.map(fleet::withLatestBeat));
  }

  /** An agent by id, or by name when no agent has that id (the old agent's fallback). */
  public Future<Optional<StoredAgent>> byIdOrName(String idOrName) {
    return byId(idOrName).compose(found -> found.isPresent() ? Future.succeededFuture(found) : byName(idOrName));
  }

  public Future<List<StoredAgent>> all() {
    return withLatestBeats(Sql.rows(pool, ALL, Tuple.tuple(), StoredAgent.class));
  }

  private Future<List<StoredAgent>> withLatestBeats(Future<List<StoredAgent>> rows) {
    return rows.map(list -> list.stream().map(fleet::withLatestBeat).toList());
  }

  public Future<Void> insert(NewAgent agent) {
    String now = Timestamps.now();
    Tuple t = Tuple.tuple().addValue(agent.id()).addValue(agent.registration().name());
    hardware(t, agent.registration())
        .addValue(agent.status()).addValue(Sql.flag(agent.testAgent()))
        .addValue(agent.tokenHash()).addValue(agent.tokenPrefix())
        .addValue(now).addValue(agent.heard() ? now : null);
    return Sql.update(pool, INSERT, t).compose(n -> refresh(agent.id()));
  }

  /** A known agent registered again: its hardware as it says now, online, heard from now. */
  public Future<Void> updateRegistration(String id, Registration registration) {
    Tuple t = hardware(Tuple.tuple(), registration)
        .addValue(AgentStatus.ONLINE.wireName()).addValue(Timestamps.now()).addValue(id);
    return Sql.update(pool, UPDATE_REGISTRATION, t).compose(n -> refresh(id));
  }

  /** The registration's columns from hostname to capabilities, in the order of INSERT and UPDATE_REGISTRATION. */
  private static Tuple hardware(Tuple t, Registration r) {
    return t.addValue(r.hostname()).addValue(r.port()).addValue(r.gpuInfo()).addValue(r.gpuCount())
        .addValue(r.cpuInfo()).addValue(r.cpuArch()).addValue(r.ramGb()).addValue(r.environmentType())
        .addValue(r.fingerprint()).addValue(r.agentVersion())
        .addValue(r.hardwareDetails() == null ? null : r.hardwareDetails().encode())
        .addValue(r.capabilities() == null ? null : new JsonArray(r.capabilities()).encode());
  }

  /** Binds a new token to an agent; the old token, and every certificate issued to the agent, are revoked. */
  public Future<Void> bindToken(String id, String name, String hash, String prefix) {
    return pool.withTransaction(conn -> Sql.update(conn, BIND_TOKEN, Tuple.of(hash, prefix, id))
        .compose(n -> revokeCertificates(conn, id, name))).compose(v -> refresh(id))
        .compose(v -> fleet.refreshRevoked(pool, id, name));
  }

  /**
   * Writes a heartbeat at once (in the caller's transaction, with its event): its status or task
   * changed. The caller tells the {@link LiveFleet} with {@link LiveFleet#written} once committed.
   */
  public Future<Void> heartbeat(SqlClient client, String id, JsonObject m, Instant at) {
    Tuple t = Tuple.tuple().addValue(m.getString("status")).addValue(m.getString("current_task"))
        .addValue(m.getDouble("gpu_utilization_pct")).addValue(m.getDouble("gpu_memory_used_gb"))
        .addValue(m.getDouble("storage_gb_free")).addValue(m.getDouble("uptime_s"))
        .addValue(Timestamps.format(at)).addValue(id);
    return Sql.update(client, HEARTBEAT, t).mapEmpty();
  }

  /**
   * Writes heartbeats kept in memory, one statement for the batch in one transaction; a row already
   * holding a later heartbeat keeps it. Status and task are not written here: they change only
   * through {@link #heartbeat(SqlClient, String, JsonObject, Instant)}.
   */
  public Future<Void> writeBeats(Map<String, LiveFleet.Beat> beats) {
    if (beats.isEmpty()) {
      return Future.succeededFuture();
    }
    List<Tuple> batch = new java.util.ArrayList<>(beats.size());
    beats.forEach((id, beat) -> {
      JsonObject m = beat.metrics();
      String at = Timestamps.format(beat.at());
      batch.add(Tuple.tuple().addValue(m.getDouble("gpu_utilization_pct")).addValue(m.getDouble("gpu_memory_used_gb"))
          .addValue(m.getDouble("storage_gb_free")).addValue(m.getDouble("uptime_s")).addValue(at).addValue(id)
          .addValue(at));
    });
    return pool.withTransaction(conn -> conn.preparedQuery(BEATS).executeBatch(batch)).mapEmpty();
  }

  /** Real agents, not yet offline, whose last written heartbeat is older than {@code cutoff}. */
  public Future<List<StoredAgent>> silentSince(String cutoff) {
    return withLatestBeats(Sql.rows(pool, SILENT, Tuple.of(cutoff), StoredAgent.class));
  }

  /** Compare-and-set of an agent's status; false when it changed meanwhile. */
  public Future<Boolean> moveStatus(SqlClient client, String id, String from, String to) {
    return Sql.update(client, SET_STATUS, Tuple.of(to, id, from)).map(n -> n == 1);
  }

  public Future<Void> patch(String id, String name, String notes, String tagsJson) {
    return Sql.update(pool, PATCH, Tuple.of(name, notes, tagsJson, id)).compose(n -> refresh(id));
  }

  /** Marks an agent deleted (kept for history); false when there is no live agent with this id. */
  public Future<Boolean> delete(SqlClient client, String id) {
    return Sql.update(client, DELETE, Tuple.of(Timestamps.now(), id)).map(n -> n > 0);
  }

  /** Effective settings: defaults overlaid with what is stored, every key present (from memory). */
  public Future<Map<String, String>> settings(String agentId) {
    return Future.succeededFuture(fleet.settings(agentId));
  }

  private Future<Map<String, String>> storedSettings(String agentId) {
    return Sql.rows(pool, SETTINGS, Tuple.of(agentId), StoredSetting.class).map(rows -> {
      Map<String, String> stored = new LinkedHashMap<>();
      rows.forEach(r -> stored.put(r.key(), r.value()));
      return AgentSettings.effective(stored);
    });
  }

  public Future<Map<String, String>> putSettings(String agentId, Map<String, String> values) {
    return pool.withTransaction(conn -> {
      Future<Void> chain = Future.succeededFuture();
      for (Map.Entry<String, String> e : values.entrySet()) {
        chain = chain
            .compose(v -> Sql.update(conn, DELETE_SETTING, Tuple.of(agentId, e.getKey())))
            .compose(v -> Sql.update(conn, INSERT_SETTING, Tuple.of(agentId, e.getKey(), e.getValue())))
            .mapEmpty();
      }
      return chain;
    }).compose(v -> storedSettings(agentId)).map(effective -> {
      fleet.settingsStored(agentId, effective);
      return effective;
    });
  }

  // --- the dashboard's reads of the fleet (lists at scale) ---

  /** What a row of the agents page shows: no token hash, no hardware details. */
  private static final String PAGE = "SELECT id, name, hostname, status, is_test_agent, last_heartbeat_at, gpu_info,"
      + " gpu_count, cpu_arch FROM agents WHERE" + LIVE + "ORDER BY name, id LIMIT ? OFFSET ?";
  private static final String LIVE_COUNT = "SELECT COUNT(*) FROM agents WHERE" + LIVE;

  /**
   * A page of live agents by name, with the columns of the agents page (and the latest heartbeat,
   * written or not), and how many live agents there are.
   */
  public Future<Page<StoredAgent>> page(int limit, int offset) {
    return Sql.count(pool, LIVE_COUNT, Tuple.tuple()).compose(total -> withLatestBeats(
        Sql.rows(pool, PAGE, Tuple.of(limit, offset), StoredAgent.class)).map(rows -> new Page<>(rows, total)));
  }

  /** The fleet in three numbers: live agents, those online and those running something. */
  public record FleetCounts(long total, long online, long running) {
  }

  /**
   * The fleet in three numbers, counted in the database ({@code ix_agents_live_status}): live agents
   * ({@code total}), those online (test agents, and real ones whose status is one of {@code online})
   * and those running something (status {@code running}, or holding a dispatched or running test).
   */
  public Future<FleetCounts> fleetCounts(List<String> online) {
    String marks = String.join(",", java.util.Collections.nCopies(online.size(), "?"));
    String sql = "SELECT COUNT(*) AS total,"
        + " COALESCE(SUM(CASE WHEN is_test_agent = 1 OR status IN (" + marks + ") THEN 1 ELSE 0 END), 0) AS online,"
        + " COALESCE(SUM(CASE WHEN status = 'running' OR id IN (SELECT agent_id FROM quick_tests"
        + " WHERE status IN ('dispatched', 'running')) THEN 1 ELSE 0 END), 0) AS running FROM agents WHERE" + LIVE;
    Tuple params = Tuple.tuple();
    online.forEach(params::addValue);
    return Sql.row(pool, sql, params, FleetCounts.class).map(Optional::orElseThrow);
  }
}
