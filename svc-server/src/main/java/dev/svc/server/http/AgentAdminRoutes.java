package dev.svc.server.http;

import dev.svc.server.store.StoredAgent;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CommandStore;
import dev.svc.server.store.NewAgent;
import dev.svc.core.CpuArch;
import dev.svc.core.Ids;
import dev.svc.core.SvcVersion;
import dev.svc.core.domain.AgentSettings;
import dev.svc.core.domain.AgentStatus;
import dev.svc.core.events.EventType;
import dev.svc.core.protocol.Registration;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.store.Sql;
import dev.svc.server.quicktests.TestTransitions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;


/**
 * The operators' routes of agents: the list and the agent resource, provisioning (the server
 * issues the token), rotation, deletion (which revokes the agent's credentials), test agents,
 * settings and cleanup. All need the global token or a logged-in session.
 */
public final class AgentAdminRoutes implements ApiArea {

  private final AgentStore agents;
  private final CommandStore commands;
  private final EventLog events;
  private final Guard guard;
  private final TestTransitions transitions;

  public AgentAdminRoutes(AgentStore agents, CommandStore commands, EventLog events, Guard guard, TestTransitions transitions) {
    this.agents = agents;
    this.commands = commands;
    this.events = events;
    this.guard = guard;
    this.transitions = transitions;
  }

  @Override
  public void mount(Router router, BodyHandler body, BodyHandler largeBody) {
    // credentials before the body: a caller without them is refused before the server reads its body
    Handler<RoutingContext> global = BeforeBody.of(guard.globalFirst());
    router.post("/api/v1/agents/test").handler(global).handler(body).handler(Handlers.async(this::createTestAgent));
    router.post("/api/v1/agents").handler(global).handler(body).handler(Handlers.async(this::provision));
    router.get("/api/v1/agents").handler(Handlers.async(this::list));
    router.get("/api/v1/agents/:id").handler(Handlers.async(this::get));
    router.patch("/api/v1/agents/:id").handler(global).handler(body).handler(Handlers.async(this::patch));
    router.delete("/api/v1/agents/:id").handler(Handlers.async(this::delete));
    router.post("/api/v1/agents/:id/rotate-token").handler(global).handler(body).handler(Handlers.async(this::rotateToken));
    router.get("/api/v1/agents/:id/settings").handler(Handlers.async(this::getSettings));
    router.put("/api/v1/agents/:id/settings").handler(global).handler(body).handler(Handlers.async(this::putSettings));
    router.post("/api/v1/agents/:id/cleanup").handler(global).handler(body).handler(Handlers.async(this::cleanup));
  }

  // --- the agent resource ---

  private Future<?> list(RoutingContext ctx) {
    guard.global(ctx);
    return agents.all().compose(rows -> {
      List<Future<JsonObject>> views = rows.stream()
          .map(row -> agents.settings(row.id()).map(s -> Views.agent(row, s))).toList();
      return Future.all(views).map(all -> {
        JsonArray out = new JsonArray();
        views.forEach(f -> out.add(f.result()));
        Replies.json(ctx, 200, out);
        return null;
      });
    });
  }

  /** 409 when the unique index on live agents' names refused the write. */
  private static <T> Future<T> uniqueName(String name, Future<T> write) {
    return write.recover(err -> Future.failedFuture(Sql.isUniqueViolation(err)
        ? ApiError.conflict("An agent named '" + name + "' already exists") : err));
  }

  private Future<StoredAgent> requireAgent(String id) {
    return agents.byId(id).map(found -> found.orElseThrow(() -> ApiError.notFound("Agent '" + id + "' not found")));
  }

  private Future<?> get(RoutingContext ctx) {
    guard.global(ctx);
    return requireAgent(ctx.pathParam("id")).compose(agent -> agents.settings(agent.id())
        .map(settings -> {
          Replies.ok(ctx, Views.agent(agent, settings));
          return null;
        }));
  }

  private Future<?> patch(RoutingContext ctx) {
    guard.global(ctx);
    Body body = Body.of(ctx);
    for (String key : body.json().fieldNames()) {
      if (!List.of("name", "notes", "tags").contains(key)) {
        throw ApiError.badRequest("Unknown field '" + key + "'; an agent's name, notes and tags can be changed");
      }
    }
    String newName = body.has("name") ? TextFields.line("name", body.requireString("name"), 255) : null;
    String notes = TextFields.text("notes", body.optString("notes", null), 10_000);
    List<String> tags = TextFields.lines("tags", body.optStringList("tags"), 64);
    String id = ctx.pathParam("id");
    return requireAgent(id).compose(agent -> {
      String name = newName == null ? agent.name() : newName;
      Future<Void> notAnId = newName == null || newName.equals(agent.name()) ? Future.succeededFuture()
          : AgentNames.requireNameIsNoAgentId(agents, newName);
      return notAnId.compose(v -> uniqueName(newName, agents.patch(id, name,
          body.has("notes") ? notes : agent.notes(),
          tags != null ? new JsonArray(List.copyOf(tags)).encode() : agent.tags())));
    }).compose(v -> requireAgent(id)).compose(agent -> agents.settings(id).map(s -> {
      Replies.ok(ctx, Views.agent(agent, s));
      return null;
    }));
  }

  private Future<?> delete(RoutingContext ctx) {
    guard.global(ctx);
    String id = ctx.pathParam("id");
    return requireAgent(id).compose(agent -> {
      String name = agent.name();
      return events.write(conn -> agents.delete(conn, id).compose(deleted -> {
        if (!deleted) {
          return Future.succeededFuture(Written.of(false));
        }
        // deleting revokes the agent's credentials: its token stays bound to the deleted row, its certificates are listed
        return agents.revokeCertificates(conn, id, name)
            .compose(v -> transitions.failAllHeldBy(conn, id, TestTransitions.AGENT_DELETED)).map(failed -> {
              List<Event> out = new java.util.ArrayList<>(failed);
              out.add(new Event(id, EventType.AGENT_STATUS, new JsonObject().put("agent_id", id)
                  .put("name", name).put("status", "deleted")));
              return Written.of(true, out);
            });
      })).compose(deleted -> !deleted ? Future.succeededFuture(false)
          : agents.refresh(id).compose(v -> agents.refreshRevoked(id, name)).map(true));
    }).map(deleted -> {
      if (!deleted) {
        throw ApiError.notFound("Agent '" + id + "' not found");
      }
      Replies.ok(ctx, new JsonObject().put("deleted", true));
      return null;
    });
  }

  private Future<?> createTestAgent(RoutingContext ctx) {
    guard.global(ctx);
    Body body = Body.of(ctx);
    String name = TextFields.line("name", body.requireString("name"), 255);
    String arch = body.optString("cpu_arch", "amd64");
    CpuArch cpuArch = CpuArch.parse(arch)
        .orElseThrow(() -> ApiError.badRequest("Field 'cpu_arch' must be amd64 (x86_64) or arm64 (aarch64)"));
    Registration hardware = new Registration(name, "test-agent-" + name, 0,
        TextFields.line("gpu_info", body.optString("gpu_info", "NVIDIA H100 80GB HBM3"), 1024),
        body.optInt("gpu_count", 1, 0, 64),
        TextFields.line("cpu_info", body.optString("cpu_info", "Simulated CPU"), 1024),
        cpuArch.wireName(),
        body.optInt("ram_gb", 64, 1, 65536),
        TextFields.line("environment_type", body.optString("environment_type", "native_linux"), 64),
        null, SvcVersion.version(), null, null);
    String id = Ids.newId();
    NewAgent fields = new NewAgent(id, hardware, AgentStatus.IDLE.wireName(), true, null, null);
    return AgentNames.requireNameIsNoAgentId(agents, name)
        .compose(v -> uniqueName(name, agents.insert(fields)))
        .compose(v -> requireAgent(id)).compose(agent -> agents.settings(agent.id()).map(s -> {
      Replies.json(ctx, 201, Views.agent(agent, s));
      return null;
    }));
  }

  /**
   * Provisions an agent before it first registers: the server issues its token (shown once), so a
   * server with a global token can enrol agents that never see the global token.
   */
  private Future<?> provision(RoutingContext ctx) {
    guard.global(ctx);
    String name = TextFields.line("name", Body.of(ctx).requireString("name"), 255);
    String id = Ids.newId();
    String token = Ids.newToken();
    NewAgent fields = new NewAgent(id, Registration.named(name), "provisioned", false, Ids.sha256Hex(token),
        Tokens.prefix(token));
    return AgentNames.requireNameIsNoAgentId(agents, name).compose(v -> uniqueName(name, agents.insert(fields))).map(v -> {
      Replies.json(ctx, 201, new JsonObject().put("agent_id", id).put("name", name).put("token", token)
          .put("token_prefix", Tokens.prefix(token)));
      return null;
    });
  }

  private Future<?> rotateToken(RoutingContext ctx) {
    guard.global(ctx);
    String id = ctx.pathParam("id");
    return requireAgent(id).compose(agent -> {
      if (agent.isTestAgent()) {
        throw ApiError.conflict("Test agents have no token");
      }
      String token = Ids.newToken();
      return agents.bindToken(id, agent.name(), Ids.sha256Hex(token), Tokens.prefix(token)).map(v -> {
        Replies.ok(ctx, new JsonObject().put("agent_id", id).put("token", token).put("token_prefix", Tokens.prefix(token)));
        return null;
      });
    });
  }

  private Future<?> getSettings(RoutingContext ctx) {
    guard.global(ctx);
    return requireAgent(ctx.pathParam("id")).compose(agent -> agents.settings(agent.id()))
        .map(settings -> {
          Replies.ok(ctx, new JsonObject(new LinkedHashMap<>(settings)));
          return null;
        });
  }

  private Future<?> putSettings(RoutingContext ctx) {
    guard.global(ctx);
    Body body = Body.of(ctx);
    Map<String, String> values = new LinkedHashMap<>();
    for (String key : body.json().fieldNames()) {
      AgentSettings.Validated v = AgentSettings.validate(key, body.json().getValue(key));
      if (!v.isOk()) {
        throw ApiError.badRequest(v.error());
      }
      values.put(key, v.value());
    }
    return requireAgent(ctx.pathParam("id"))
        .compose(agent -> agents.putSettings(agent.id(), values))
        .map(settings -> {
          Replies.ok(ctx, new JsonObject(new LinkedHashMap<>(settings)));
          return null;
        });
  }

  private Future<?> cleanup(RoutingContext ctx) {
    guard.global(ctx);
    Body body = Body.orEmpty(ctx);
    String requested = body.optString("model_path", "");
    return requireAgent(ctx.pathParam("id")).compose(agent -> {
      if (agent.isTestAgent()) {
        throw ApiError.conflict("Test agents have no storage to clean up");
      }
      return agents.settings(agent.id()).compose(settings -> {
        String modelPath = ModelStoragePaths.cleanupTarget("model_path", requested,
            settings.get(AgentSettings.MODEL_STORAGE_DIR));
        String commandId = Ids.newId();
        return commands.enqueue(commandId, agent.id(), "cleanup_storage", null,
            new JsonObject().put("model_path", modelPath)).map(v -> {
              Replies.json(ctx, 202, new JsonObject().put("command_id", commandId).put("queued", true));
              return null;
            });
      });
    });
  }
}
