package dev.svc.agent.engine;

import dev.svc.agent.AgentBus;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.protocol.LogBatch;
import dev.svc.core.protocol.ResultReport;
import dev.svc.core.protocol.StatusReport;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the engine reports to the uplink ({@link AgentBus#UPLINK_LOGS}, {@code _STATUS},
 * {@code _RESULT}): each report is its protocol message with the test and command it belongs to,
 * sent again and again until the uplink's spool has it (the uplink may not be deployed yet, or be
 * busy); it gives up only when the agent stops.
 */
final class UplinkReports {

  private static final Logger LOG = LoggerFactory.getLogger(UplinkReports.class);

  private final Vertx vertx;
  private final BooleanSupplier stopping;

  UplinkReports(Vertx vertx, BooleanSupplier stopping) {
    this.vertx = vertx;
    this.stopping = stopping;
  }

  /** Log lines of a run; the uplink numbers its batches. */
  Future<Void> logs(String testId, String commandId, List<String> lines) {
    return deliver(AgentBus.UPLINK_LOGS, owned(new LogBatch(lines, null).toJson(), testId, commandId));
  }

  Future<Void> status(String testId, String commandId, QuickTestStatus status, String error) {
    return deliver(AgentBus.UPLINK_STATUS, owned(new StatusReport(status, error).toJson(), testId, commandId));
  }

  Future<Void> result(ResultReport report) {
    return deliver(AgentBus.UPLINK_RESULT, report.toJson());
  }

  /** The result of a run that exited: completed with its metrics, or failed with the exit status and the last error. */
  static ResultReport exited(String commandId, String testId, int exit, String lastError, JsonObject metrics) {
    String error = exit == 0 ? null : "svc run exited with status " + exit + (lastError == null ? "" : ": " + lastError);
    QuickTestStatus status = exit == 0 ? QuickTestStatus.COMPLETED : QuickTestStatus.FAILED;
    return new ResultReport(commandId, testId, status.wireName(), error, metrics);
  }

  private static JsonObject owned(JsonObject message, String testId, String commandId) {
    return message.put("test_id", testId).put("command_id", commandId);
  }

  private Future<Void> deliver(String address, JsonObject body) {
    Promise<Void> promise = Promise.promise();
    attempt(address, body, 500, promise);
    return promise.future();
  }

  private void attempt(String address, JsonObject body, long backoffMs, Promise<Void> promise) {
    vertx.eventBus().request(address, body, new DeliveryOptions().setSendTimeout(30_000)).onComplete(r -> {
      if (r.succeeded()) {
        promise.complete();
      } else if (stopping.getAsBoolean()) {
        promise.fail(r.cause());
      } else {
        LOG.warn("The uplink did not take {} ({}); retrying", address, r.cause().getMessage());
        vertx.setTimer(backoffMs, t -> attempt(address, body, Math.min(backoffMs * 2, 10_000), promise));
      }
    });
  }
}
