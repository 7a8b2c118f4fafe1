package dev.svc.server.http;

import dev.svc.server.store.StoredAgent;
import dev.svc.server.events.EventLog;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.server.results.ResultRecorder;
import dev.svc.server.store.QuickTestStore;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.protocol.ResultReport;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.results.ResultRecorder.Recorded;
import dev.svc.server.store.QuickTestStore.EndedBy;
import dev.svc.server.store.StoredQuickTest;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An agent's result report: stored once per agent and command (a retry gets the same result id),
 * linked to its quick test and moving that test to its final status when the report carries one,
 * all in one transaction. A new result is taken only for a test the agent holds (dispatched or
 * running) or ended itself: one the server has failed meanwhile (lost, cancelled, deleted, timed
 * out) or never handed out gets none.
 */
public final class ResultSubmission {

  private final QuickTestStore tests;
  private final EventLog events;
  private final TestTransitions transitions;
  private final ResultRecorder resultRecorder;

  public ResultSubmission(QuickTestStore tests, EventLog events, TestTransitions transitions, ResultRecorder resultRecorder) {
    this.tests = tests;
    this.events = events;
    this.transitions = transitions;
    this.resultRecorder = resultRecorder;
  }

  Future<JsonObject> submit(StoredAgent agent, ResultReport report) {
    Optional<QuickTestStatus> finalStatus = report.status() == null ? Optional.empty()
        : Optional.of(QuickTestStatus.parse(report.status()).filter(QuickTestStatus::isTerminal)
            .orElseThrow(() -> ApiError.badRequest("Field 'status' must be completed or failed")));
    String agentId = agent.id();
    String commandId = report.commandId();
    String error = report.error();
    JsonObject data = report.resultData();
    return findTest(commandId, report.testId()).compose(test -> {
      if (test.isPresent() && !agentId.equals(test.get().agentId())) {
        throw ApiError.forbidden("Test " + test.get().id() + " belongs to another agent");
      }
      String testId = test.map(StoredQuickTest::id).orElse(null);
      return events.write(conn -> read(conn, testId)
          .compose(fresh -> store(conn, fresh, agentId, commandId, finalStatus, error, data)))
          .map(resultId -> new JsonObject().put("accepted", true).put("result_id", resultId));
    });
  }

  /** The report in the event log's transaction: the result (existing or new), its link, the final status. */
  private Future<Written<String>> store(SqlConnection conn, StoredQuickTest test, String agentId, String commandId,
      Optional<QuickTestStatus> finalStatus, String error, JsonObject data) {
    return resultRecorder.existing(conn, agentId, commandId).compose(existing -> {
      Future<Recorded> recorded;
      if (existing.isPresent()) {
        recorded = resultRecorder.link(conn, test, existing.get());
      } else if (data == null) {
        recorded = Future.succeededFuture(new Recorded(null, List.of()));
      } else {
        requireHeld(test);
        recorded = resultRecorder.record(conn, data, test, agentId, commandId);
      }
      return recorded.compose(r -> finish(conn, test, finalStatus, error).map(moved -> {
        List<Event> events = new ArrayList<>(r.events());
        events.addAll(moved);
        return Written.of(r.resultId(), events);
      }));
    });
  }

  private Future<StoredQuickTest> read(SqlConnection conn, String testId) {
    return testId == null ? Future.succeededFuture(null) : tests.byId(conn, testId).map(t -> t.orElse(null));
  }

  /** A new result needs a test the agent holds or ended itself. */
  private static void requireHeld(StoredQuickTest test) {
    if (test == null) {
      return;
    }
    QuickTestStatus status = QuickTestStatus.parse(test.status()).orElseThrow();
    String id = test.id();
    if (status == QuickTestStatus.QUEUED) {
      throw ApiError.conflict("Quick test " + id + " was not dispatched to this agent; its result is not recorded");
    }
    if (status.isTerminal() && !"agent".equals(test.endedBy())) {
      String reason = test.error();
      throw ApiError.conflict("Quick test " + id + " already " + status.wireName()
          + (reason == null ? "" : " (" + reason + ")") + "; its result is not recorded");
    }
  }

  private Future<Optional<StoredQuickTest>> findTest(String commandId, String testId) {
    if (testId != null && !testId.isBlank()) {
      return tests.byId(testId).map(t -> {
        if (t.isEmpty()) {
          throw ApiError.notFound("Quick test '" + testId + "' not found");
        }
        return t;
      });
    }
    return tests.byCommandId(commandId);
  }

  private Future<List<Event>> finish(SqlConnection conn, StoredQuickTest test, Optional<QuickTestStatus> finalStatus,
      String error) {
    if (test == null || finalStatus.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    QuickTestStatus current = QuickTestStatus.parse(test.status()).orElse(null);
    if (current == null || !current.canMoveTo(finalStatus.get()) || current == QuickTestStatus.QUEUED) {
      return Future.succeededFuture(List.of());
    }
    String reason = finalStatus.get() == QuickTestStatus.FAILED ? error : null;
    return transitions.move(conn, test, current, finalStatus.get(), reason, EndedBy.AGENT);
  }
}
