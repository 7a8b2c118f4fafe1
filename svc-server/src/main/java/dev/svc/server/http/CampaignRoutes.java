package dev.svc.server.http;

import dev.svc.server.store.StoredAgent;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.engines.EngineCatalog;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CampaignStore;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.QuickTestStore;
import io.vertx.core.Vertx;
import dev.svc.core.CpuArch;
import dev.svc.core.Ids;
import dev.svc.core.domain.Benchmarks;
import dev.svc.core.domain.CampaignStatus;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.CampaignSignal;
import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.EventType;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import dev.svc.engines.Compatibility;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.Verdict;
import dev.svc.server.campaigns.CampaignConfig;
import dev.svc.server.store.StoredCampaign;
import dev.svc.server.store.StoredQuickTest;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.ArrayList;
import java.util.List;

/** Campaigns: create (validated), list, detail with counters and rows, launch, cancel, logs, delete. */
public final class CampaignRoutes implements ApiArea {

  static final int MAX_MATRIX = 1000;

  private final Vertx vertx;
  private final AgentStore agents;
  private final QuickTestStore tests;
  private final CampaignStore campaigns;
  private final EventLog events;
  private final EventStore eventStore;
  private final EngineCatalog engines;
  private final Guard guard;
  private final TestTransitions transitions;

  public CampaignRoutes(Vertx vertx, AgentStore agents, QuickTestStore tests, CampaignStore campaigns, EventLog events, EventStore eventStore, EngineCatalog engines, Guard guard,
      TestTransitions transitions) {
    this.vertx = vertx;
    this.agents = agents;
    this.tests = tests;
    this.campaigns = campaigns;
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
    router.get("/api/v1/campaigns").handler(Handlers.async(this::list));
    router.post("/api/v1/campaigns").handler(global).handler(body).handler(Handlers.async(this::create));
    router.get("/api/v1/campaigns/:id").handler(Handlers.async(this::get));
    router.delete("/api/v1/campaigns/:id").handler(Handlers.async(this::delete));
    router.post("/api/v1/campaigns/:id/launch").handler(global).handler(body).handler(Handlers.async(this::launch));
    router.post("/api/v1/campaigns/:id/cancel").handler(global).handler(body).handler(Handlers.async(this::cancel));
    router.get("/api/v1/campaigns/:id/logs").handler(Handlers.async(this::logs));
  }

  private Future<?> list(RoutingContext ctx) {
    guard.global(ctx);
    Pagination page = Pagination.withCursor(ctx);
    String status = ctx.request().getParam("status");
    if (status != null && !status.isEmpty() && CampaignStatus.parse(status).isEmpty()) {
      throw ApiError.badRequest("Query parameter 'status' must be one of draft, queued, running, completed, failed, cancelled");
    }
    return campaigns.list(status, page.perPage(), page.offset(), page.cursor()).map(p -> {
      JsonArray items = new JsonArray();
      p.items().forEach(row -> items.add(Views.campaign(row)));
      Replies.ok(ctx, page.envelope(items, p.total(), p.next()));
      return null;
    });
  }

  private Future<?> create(RoutingContext ctx) {
    guard.global(ctx);
    Body body = Body.of(ctx);
    String name = TextFields.line("name", body.requireString("name"), 255);
    String description = TextFields.text("description", body.optString("description", ""), 10_000);
    String agentId = TextFields.limit("agent_id", body.requireString("agent_id"), 64);
    JsonObject rawConfig = body.optObject("config");
    if (rawConfig == null) {
      throw ApiError.badRequest("Field 'config' is required");
    }
    CampaignConfig matrix = known(Body.wire(() -> CampaignConfig.parse(rawConfig)));
    int total = matrix.runs();
    if (total > MAX_MATRIX) {
      throw ApiError.badRequest("A campaign may have at most " + MAX_MATRIX + " runs (models × engines × benchmarks)");
    }
    return agents.byId(agentId).compose(found -> {
      StoredAgent agent = found.orElseThrow(() -> ApiError.notFound("Agent '" + agentId + "' not found"));
      checkMatrix(agent, matrix);
      String id = Ids.newId();
      return events.write(conn -> campaigns.insert(conn, id, name, description, agentId, matrix.toJson(), total)
          .map(v -> Written.of((Void) null, new Event(id, EventType.CAMPAIGN_CREATED,
              new JsonObject().put("campaign_id", id).put("name", name)))))
          .compose(v -> detail(id));
    }).map(campaign -> {
      Replies.json(ctx, 201, campaign);
      return null;
    });
  }

  /** The config with its paths checked and its engines and benchmarks as the catalogs name them. */
  private CampaignConfig known(CampaignConfig config) {
    List<CampaignConfig.Model> models = new ArrayList<>();
    for (CampaignConfig.Model model : config.models()) {
      models.add(new CampaignConfig.Model(model.name(), QuickTestRoutes.checkPath("config.models[].path", model.path(), true)));
    }
    List<CampaignConfig.Engine> engines = new ArrayList<>();
    for (CampaignConfig.Engine engine : config.engines()) {
      String name = this.engines.find(engine.name()).map(EngineSpec::name).orElseThrow(() -> ApiError.badRequest(
          "Unknown engine '" + engine.name() + "'; known engines: " + String.join(", ", this.engines.names())));
      engines.add(new CampaignConfig.Engine(name, engine.suite()));
    }
    List<String> benchmarks = new ArrayList<>();
    for (String benchmark : config.benchmarks()) {
      benchmarks.add(Benchmarks.canonical(benchmark).orElseThrow(() -> ApiError.badRequest(
          "Unknown benchmark '" + benchmark + "'; known benchmarks: " + String.join(", ", Benchmarks.all()))));
    }
    return new CampaignConfig(models, engines, benchmarks, config.suiteName(), config.force());
  }

  private void checkMatrix(StoredAgent agent, CampaignConfig matrix) {
    CpuArch arch = CpuArch.parse(agent.cpuArch()).orElse(null);
    for (CampaignConfig.Engine e : matrix.engines()) {
      EngineSpec engine = this.engines.find(e.name()).orElseThrow();
      for (CampaignConfig.Model m : matrix.models()) {
        Verdict v = Compatibility.check(engine, arch, m.path(), matrix.force());
        if (!v.compatible()) {
          throw ApiError.unprocessable(v.reason());
        }
      }
    }
  }

  private Future<JsonObject> detail(String id) {
    return campaigns.byId(id).compose(found -> {
      StoredCampaign row = found.orElseThrow(() -> ApiError.notFound("Campaign '" + id + "' not found"));
      return campaigns.tests(id).map(tests -> {
        JsonArray rows = new JsonArray();
        tests.forEach(t -> rows.add(Views.campaignTest(t)));
        return Views.campaign(row).put("quick_tests", rows);
      });
    });
  }

  private Future<?> get(RoutingContext ctx) {
    guard.global(ctx);
    return detail(ctx.pathParam("id")).map(c -> {
      Replies.ok(ctx, c);
      return null;
    });
  }

  private Future<?> delete(RoutingContext ctx) {
    guard.global(ctx);
    String id = ctx.pathParam("id");
    return detail(id).compose(c -> {
      if (CampaignStatus.RUNNING.wireName().equals(c.getString("status"))) {
        throw ApiError.conflict("Campaign " + id + " is running; cancel it first");
      }
      return events.write(conn -> campaigns.delete(conn, id).map(deleted -> Written.of(deleted)));
    }).map(deleted -> {
      if (!deleted) {
        throw ApiError.conflict("Campaign " + id + " started running meanwhile; cancel it first");
      }
      Replies.ok(ctx, new JsonObject().put("deleted", true));
      return null;
    });
  }

  private Future<?> launch(RoutingContext ctx) {
    guard.global(ctx);
    String id = ctx.pathParam("id");
    return moveCampaign(id, CampaignStatus.QUEUED).map(c -> {
      vertx.eventBus().send(EventAddresses.CAMPAIGN_LAUNCH, new CampaignSignal(id).toJson());
      Replies.json(ctx, 202, c);
      return null;
    });
  }

  private Future<?> cancel(RoutingContext ctx) {
    guard.global(ctx);
    String id = ctx.pathParam("id");
    return campaigns.byId(id).compose(found -> {
      StoredCampaign row = found.orElseThrow(() -> ApiError.notFound("Campaign '" + id + "' not found"));
      CampaignStatus current = CampaignStatus.parse(row.status()).orElseThrow();
      if (!current.canCancel()) {
        throw ApiError.conflict("Campaign " + id + " is " + current.wireName() + "; only queued or running campaigns can be cancelled");
      }
      return moveCampaign(id, CampaignStatus.CANCELLED).compose(c -> cancelActiveRows(id).map(v -> {
        vertx.eventBus().send(EventAddresses.CAMPAIGN_CANCEL, new CampaignSignal(id).toJson());
        return c;
      })).compose(c -> detail(id));
    }).map(c -> {
      Replies.ok(ctx, c);
      return null;
    });
  }

  private Future<Void> cancelActiveRows(String campaignId) {
    return campaigns.tests(campaignId).compose(rows -> {
      Future<Void> chain = Future.succeededFuture();
      for (StoredQuickTest row : rows) {
        if (QuickTestStatus.parse(row.status()).map(QuickTestStatus::isActive).orElse(false)) {
          chain = chain.compose(v -> tests.byId(row.id()))
              .compose(test -> test.isEmpty() ? Future.succeededFuture()
                  : QuickTestTransitions.cancel(transitions, test.get()).recover(err -> err instanceof ApiError
                      ? Future.succeededFuture() : Future.failedFuture(err)));
        }
      }
      return chain;
    });
  }

  private Future<JsonObject> moveCampaign(String id, CampaignStatus target) {
    return campaigns.byId(id).compose(found -> {
      StoredCampaign row = found.orElseThrow(() -> ApiError.notFound("Campaign '" + id + "' not found"));
      CampaignStatus current = CampaignStatus.parse(row.status()).orElseThrow();
      if (!current.canMoveTo(target)) {
        throw ApiError.conflict("Campaign " + id + " is " + current.wireName() + " and cannot become " + target.wireName());
      }
      return events.write(conn -> campaigns.move(conn, id, current, target).map(moved -> moved
          ? Written.of(true, new Event(id, EventType.STATUS, new JsonObject().put("campaign_id", id)
              .put("status", target.wireName()).putNull("error")))
          : Written.of(false))).compose(moved -> {
            if (!moved) {
              throw ApiError.conflict("Campaign " + id + " changed status meanwhile; read it again");
            }
            return detail(id);
          });
    });
  }

  private Future<?> logs(RoutingContext ctx) {
    guard.global(ctx);
    String id = ctx.pathParam("id");
    long after = Pagination.afterCursor(ctx);
    int limit = Pagination.logLimit(ctx);
    return campaigns.byId(id).compose(found -> {
      found.orElseThrow(() -> ApiError.notFound("Campaign '" + id + "' not found"));
      return eventStore.lines(id, after, limit);
    }).map(rows -> {
      Replies.ok(ctx, Views.logLines(rows));
      return null;
    });
  }
}
