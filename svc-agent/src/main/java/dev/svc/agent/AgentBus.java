package dev.svc.agent;

/**
 * The addresses on the agent's own (local, unclustered) event bus, where its three verticles
 * talk. Bodies are JSON objects; field names are those of the wire protocol.
 *
 * <pre>
 * ENGINE_COMMAND  request  Control → Engine   a server command as received:
 *                                             {command_id, test_id, type, payload}; type run_test,
 *                                             run_container, cleanup_storage or cancel_test.
 *                                             Reply {accepted: bool, reason?}. Idempotent per
 *                                             command_id (the server sends a command until it is
 *                                             acknowledged); Control acknowledges a command only
 *                                             once accepted is true.
 * ENGINE_CANCEL   request  LogServer → Engine {test_id} → {cancelled: bool}; the benchmark's
 *                                             process or container is gone when it answers true.
 * ENGINE_STATE    request  any → Engine       {} → {busy, test_id, command_id, status}
 *                                             (status idle, running or error).
 * SETTINGS        publish  Control → all      the agent's settings as the server sent them
 *                                             (string values, every key present).
 * LOG             publish  Engine → LogServer {command_id, test_id, line}: the benchmark's output,
 *                                             for the local SSE stream /api/logs/&lt;command_id&gt;.
 * UPLINK_LOGS     request  Engine → Uplink    {test_id, command_id, lines: [..]}
 * UPLINK_STATUS   request  Engine → Uplink    {test_id, command_id, status, error?}
 * UPLINK_RESULT   request  Engine → Uplink    {command_id, test_id, status, error, result_data}
 *                                             The three UPLINK requests are answered once the
 *                                             entry is on disk in the spool; the uplink delivers
 *                                             them to the server in the order received, retrying
 *                                             with backoff and jitter until the server accepts
 *                                             (2xx) or refuses for good (4xx other than 408/429).
 * TEST_ENDED      publish  Uplink → LogServer {test_id, command_id} once a test's final status or
 *                                             result is spooled: that command's local log stream ends.
 * </pre>
 */
public final class AgentBus {

  public static final String ENGINE_COMMAND = "svc.agent.engine.command";
  public static final String ENGINE_CANCEL = "svc.agent.engine.cancel";
  public static final String ENGINE_STATE = "svc.agent.engine.state";
  public static final String SETTINGS = "svc.agent.settings";
  public static final String LOG = "svc.agent.log";
  public static final String UPLINK_LOGS = "svc.agent.uplink.logs";
  public static final String UPLINK_STATUS = "svc.agent.uplink.status";
  public static final String UPLINK_RESULT = "svc.agent.uplink.result";
  public static final String TEST_ENDED = "svc.agent.uplink.test-ended";

  private AgentBus() {
  }
}
