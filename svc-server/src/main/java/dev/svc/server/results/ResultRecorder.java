package dev.svc.server.results;

import dev.svc.core.Ids;
import dev.svc.core.Timestamps;
import dev.svc.core.events.EventType;
import dev.svc.server.store.Event;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.ResultStore;
import dev.svc.server.store.StoredQuickTest;
import dev.svc.server.store.StoredResult;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlConnection;
import java.util.List;
import java.util.Optional;

/**
 * The result-store path for a run's metrics.json, whether an agent reported it or the simulator
 * made it: stored once per agent and command (a retry or a resumed run gets the same result; one
 * agent cannot touch another's), linked to its quick test, announced with a {@code result} event.
 * It runs inside the caller's event-log write, so the result, its link and its event are one transaction.
 */
public final class ResultRecorder {

  /** The result's id and the events recording it caused (none when it was stored and linked before). */
  public record Recorded(String resultId, List<Event> events) {
  }

  private final ResultStore results;
  private final QuickTestStore tests;

  public ResultRecorder(ResultStore results, QuickTestStore tests) {
    this.results = results;
    this.tests = tests;
  }

  /** The id of the result this agent reported for this command, if it reported one. */
  public Future<Optional<String>> existing(SqlConnection conn, String agentId, String commandId) {
    return results.byAgentCommand(conn, agentId, commandId).map(r -> r.map(StoredResult::id));
  }

  /**
   * Stores the result unless this agent's command has one already, and links it to its test.
   *
   * @param test the quick test it belongs to as read in this transaction, or null when the report names none
   */
  public Future<Recorded> record(SqlConnection conn, JsonObject data, StoredQuickTest test, String agentId,
      String commandId) {
    return existing(conn, agentId, commandId)
        .compose(found -> found.isPresent() ? Future.succeededFuture(found.get())
            : insert(conn, data, test == null ? null : test.id(), agentId, commandId))
        .compose(resultId -> link(conn, test, resultId));
  }

  /** Links a stored result to its test (once): the link and its {@code result} event. */
  public Future<Recorded> link(SqlConnection conn, StoredQuickTest test, String resultId) {
    if (test == null || resultId == null || resultId.equals(test.resultId())) {
      return Future.succeededFuture(new Recorded(resultId, List.of()));
    }
    String testId = test.id();
    return tests.linkResult(conn, testId, resultId).map(v -> new Recorded(resultId, List.of(new Event(testId,
        EventType.RESULT, new JsonObject().put("test_id", testId).put("result_id", resultId)))));
  }

  private Future<String> insert(SqlConnection conn, JsonObject data, String testId, String agentId, String commandId) {
    ResultFields fields = ResultFields.extract(data);
    String id = Ids.newId();
    ResultStore.NewResult row = new ResultStore.NewResult(id, fields.model(), fields.engine(), fields.suiteName(),
        fields.timestamp().orElse(Timestamps.now()), fields.passed(), data, null, testId, agentId, commandId);
    return results.insert(conn, row).map(id);
  }
}
