package dev.svc.server.http;

import dev.svc.server.store.StoredAgent;
import dev.svc.engines.EngineCatalog;
import dev.svc.server.events.EventLog;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.QuickTestStore;
import dev.svc.core.CpuArch;
import dev.svc.core.Ids;
import dev.svc.core.domain.Benchmarks;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.protocol.CancelAnswer;
import dev.svc.core.protocol.LogBatch;
import dev.svc.core.protocol.StatusReport;
import dev.svc.engines.Compatibility;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.Verdict;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.store.QuickTestStore.LogAppend;
import dev.svc.server.store.NewQuickTest;
import dev.svc.server.store.StoredQuickTest;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;

/** Quick tests: submit with compatibility checks, list, detail, logs, status reports, cancel. */
public final class QuickTestRoutes implements ApiArea {

  private final AgentStore agents;
  private final QuickTestStore tests;
  private final EventLog events;
  private final EventStore eventStore;
  private final EngineCatalog engines;
  private final Guard guard;
  private final TestTransitions transitions;

  public QuickTestRoutes(AgentStore agents, QuickTestStore tests, EventLog events, EventStore eventStore, EngineCatalog engines, Guard guard, TestTransitions transitions) {
    this.agents = agents;
    this.tests = tests;
    this.events = events;
    this.eventStore = eventStore;
    this.engines = engines;
    this.guard = guard;
    this.transitions = transitions;
  }

  @Override
  public void mount(Router router, BodyHandler body, BodyHandler largeBody) {
    // credentials before the body: a caller without them is refused before the server reads its body
    Handler<RoutingContext> global = BeforeBody.of(guard.globalFirst());
    router.post("/api/v1/quicktest").handler(global).handler(body).handler(Handlers.async(this::submit));
    router.get("/api/v1/quicktest").handler(Handlers.async(this::list));
    router.get("/api/v1/quicktest/agent-capabilities").handler(Handlers.async(this::capabilities));
    router.get("/api/v1/quicktest/engine-formats").handler(Handlers.async(this::engineFormats));
    router.get("/api/v1/quicktest/:id").handler(Handlers.async(this::get));
    router.get("/api/v1/quicktest/:id/logs").handler(Handlers.async(this::logs));
    Handler<RoutingContext> precheck = BeforeBody.of(guard.agentPrecheck(agents::tokenState));
    router.post("/api/v1/quicktest/:id/logs").handler(precheck).handler(body).handler(Handlers.async(this::postLogs));
    router.post("/api/v1/quicktest/:id/status").handler(precheck).handler(body).handler(Handlers.async(this::postStatus));
    router.post("/api/v1/quicktest/:id/cancel").handler(precheck).handler(body).handler(Handlers.async(this::cancel));
  }

  /** Rejects path-traversal and control characters in a path given by a client. */
  static String checkPath(String field, String value, boolean required) {
    if (value == null || value.isBlank()) {
      if (required) {
        throw ApiError.badRequest("Field '" + field + "' is required");
      }
      return "";
    }
    String path = value.trim();
    if (path.length() > 4096) {
      throw ApiError.badRequest("Field '" + field + "' must be at most 4096 characters");
    }
    TextFields.line(field, path, 4096);
    // percent-encoded dots and separators count too: "%2e%2e%2f" is "../" to anything that URL-decodes the path
    String decoded = path.replaceAll("(?i)%2e", ".").replaceAll("(?i)%2f|%5c", "/");
    for (String segment : decoded.split("[/\\\\]")) {
      if (segment.equals("..")) {
        throw ApiError.badRequest("Field '" + field + "' must not contain '..' segments");
      }
    }
    return path;
  }

  private Future<?> submit(RoutingContext ctx) {
    guard.global(ctx);
    Body body = Body.of(ctx);
    String agentId = TextFields.limit("agent_id", body.requireString("agent_id"), 64);
    String modelPath = checkPath("model_path", body.optString("model_path", null), true);
    String engineName = body.requireString("engine_name");
    String benchmark = Benchmarks.canonical(body.optString("benchmark_name", "throughput"))
        .orElseThrow(() -> ApiError.badRequest("Unknown benchmark; known benchmarks: " + String.join(", ", Benchmarks.all())));
    String suite = body.optString("suite_name", "quick");
    if (!suite.matches("[A-Za-z0-9_.-]{1,64}")) {
      throw ApiError.badRequest("Field 'suite_name' must be a suite name (letters, digits, '_', '-', '.')");
    }
    boolean force = body.optBool("force", false);
    EngineSpec engine = engines.find(engineName).orElseThrow(() -> ApiError.badRequest(
        "Unknown engine '" + engineName + "'; known engines: " + String.join(", ", engines.names())));
    return agents.byId(agentId).compose(found -> {
      StoredAgent agent = found.orElseThrow(() -> ApiError.notFound("Agent '" + agentId + "' not found"));
      CpuArch arch = CpuArch.parse(agent.cpuArch()).orElse(null);
      Verdict verdict = Compatibility.check(engine, arch, modelPath, force);
      if (!verdict.compatible()) {
        throw ApiError.unprocessable(verdict.reason());
      }
      String id = Ids.newId();
      String commandId = Ids.newId();
      NewQuickTest test = new NewQuickTest(id, agent.id(), modelPath, engine.name(), benchmark, suite,
          commandId, force, null, null);
      return transitions.queue(test, agent.isTestAgent())
          .map(stored -> {
            if (!stored) {
              throw ApiError.notFound("Agent '" + agentId + "' was deleted");
            }
            Replies.json(ctx, 202, new JsonObject().put("id", id).put("command_id", commandId)
                .put("status", QuickTestStatus.QUEUED.wireName()));
            return null;
          });
    });
  }

  /**
   * Global; an agent's own token may list that agent's tests ({@code agent_id} names it, by id or,
   * as on the heartbeat, by name: {@code svc-agent test list} knows only its name).
   */
  private Future<?> list(RoutingContext ctx) {
    String agentParam = ctx.request().getParam("agent_id");
    if (agentParam == null || agentParam.isEmpty()) {
      guard.global(ctx);
      return list(ctx, null);
    }
    return agents.byIdOrName(agentParam).compose(agent -> {
      guard.agent(ctx, agent.orElse(null));
      return list(ctx, agent.map(a -> a.id()).orElse(agentParam));
    });
  }

  private Future<?> list(RoutingContext ctx, String agentId) {
    Pagination page = Pagination.withCursor(ctx);
    String status = ctx.request().getParam("status");
    if (status != null && !status.isEmpty() && QuickTestStatus.parse(status).isEmpty()) {
      throw ApiError.badRequest("Query parameter 'status' must be one of queued, dispatched, running, completed, failed");
    }
    return tests.list(status, agentId, ctx.request().getParam("agent_name"),
        ctx.request().getParam("engine"), ctx.request().getParam("model"), page.perPage(), page.offset(), page.cursor())
        .map(p -> {
          JsonArray items = new JsonArray();
          p.items().forEach(row -> items.add(Views.quickTest(row)));
          Replies.ok(ctx, page.envelope(items, p.total(), p.next()));
          return null;
        });
  }

  private Future<StoredQuickTest> requireTest(String id) {
    return tests.byId(id).map(t -> t.orElseThrow(() -> ApiError.notFound("Quick test '" + id + "' not found")));
  }

  private Future<?> get(RoutingContext ctx) {
    guard.global(ctx);
    return requireTest(ctx.pathParam("id")).map(test -> {
      Replies.ok(ctx, Views.quickTest(test));
      return null;
    });
  }

  private Future<?> logs(RoutingContext ctx) {
    guard.global(ctx);
    long afterId = Pagination.afterCursor(ctx);
    int limit = Pagination.logLimit(ctx);
    return requireTest(ctx.pathParam("id"))
        .compose(test -> eventStore.lines(test.id(), afterId, limit))
        .map(rows -> {
          Replies.ok(ctx, Views.logLines(rows));
          return null;
        });
  }

  /** The test and its owning agent, after checking that the caller is that agent or holds the global token. */
  private Future<StoredQuickTest> requireOwnedTest(RoutingContext ctx) {
    return requireTest(ctx.pathParam("id")).compose(test -> agents.byIdIncludingDeleted(test.agentId())
        .map(agent -> {
          guard.agent(ctx, agent.orElse(null));
          return test;
        }));
  }

  private Future<?> postLogs(RoutingContext ctx) {
    LogBatch batch = Body.wire(() -> LogBatch.parse(Body.of(ctx).json()));
    List<String> lines = batch.lines();
    return requireOwnedTest(ctx).compose(test -> {
      String testId = test.id();
      return events.write(conn -> tests.acceptLogs(conn, testId, batch.seq()).map(outcome ->
          outcome != LogAppend.STORED ? Written.of(outcome)
              : Written.of(outcome, lines.stream().map(line -> Event.testLog(testId, line)).toList()))).compose(outcome -> outcome != LogAppend.NOT_ACTIVE ? Future.succeededFuture(outcome)
          : tests.byId(testId).map(now -> {
            String status = now.map(StoredQuickTest::status).orElse("deleted");
            throw ApiError.conflict("Quick test " + testId + " is " + status + ": it takes log lines only while"
                + " an agent holds it (dispatched or running)");
          }));
    }).map(outcome -> {
      JsonObject reply = new JsonObject().put("ok", true);
      if (outcome == LogAppend.DUPLICATE) {
        reply.put("duplicate", true); // a retry of a batch stored before: nothing stored again
      } else {
        reply.put("stored", lines.size());
      }
      Replies.ok(ctx, reply);
      return null;
    });
  }

  private Future<?> postStatus(RoutingContext ctx) {
    StatusReport report = Body.wire(() -> StatusReport.parse(Body.of(ctx).json()));
    QuickTestStatus target = report.status();
    String error = report.error();
    return requireOwnedTest(ctx).compose(test -> {
      QuickTestStatus current = QuickTestStatus.parse(test.status()).orElseThrow();
      if (current == target) {
        return Future.succeededFuture(current);
      }
      if (current == QuickTestStatus.QUEUED) {
        // only the dispatcher hands a queued test out: a report cannot take one that was never given
        throw ApiError.conflict("Quick test " + test.id() + " is queued: it was not dispatched to an agent");
      }
      return QuickTestTransitions.move(transitions, test, current, target, target == QuickTestStatus.FAILED ? error : null);
    }).map(status -> {
      Replies.ok(ctx, new JsonObject().put("ok", true).put("status", status.wireName()));
      return null;
    });
  }

  /** Global, or the token of the agent the test belongs to ({@code svc-agent test stop}). */
  private Future<?> cancel(RoutingContext ctx) {
    return requireOwnedTest(ctx).compose(test -> QuickTestTransitions.cancel(transitions, test)).map(v -> {
      Replies.ok(ctx, new CancelAnswer(QuickTestStatus.FAILED, QuickTestTransitions.CANCELLED).toJson());
      return null;
    });
  }

  private Future<?> capabilities(RoutingContext ctx) {
    guard.global(ctx);
    return agents.all().map(agents -> {
      JsonObject out = new JsonObject();
      for (StoredAgent agent : agents) {
        CpuArch arch = CpuArch.parse(agent.cpuArch()).orElse(null);
        JsonObject engines = new JsonObject();
        for (EngineSpec engine : this.engines.all()) {
          Verdict v = Compatibility.checkPlatform(engine, arch);
          JsonObject e = new JsonObject().put("compatible", v.compatible()).put("formats", new JsonArray(engine.formatNames()));
          if (!v.compatible()) {
            e.put("reason", v.reason());
          }
          engines.put(engine.name(), e);
        }
        out.put(agent.id(), new JsonObject().put("name", agent.name())
            .put("cpu_arch", agent.cpuArch()).put("is_test_agent", agent.isTestAgent())
            .put("engines", engines));
      }
      Replies.ok(ctx, out);
      return null;
    });
  }

  private Future<?> engineFormats(RoutingContext ctx) {
    guard.global(ctx);
    JsonObject out = new JsonObject();
    engines.formatsByEngine().forEach((name, formats) -> out.put(name, new JsonArray(formats)));
    Replies.ok(ctx, out);
    return Future.succeededFuture();
  }
}
