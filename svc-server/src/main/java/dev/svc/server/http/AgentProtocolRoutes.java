package dev.svc.server.http;

import dev.svc.server.dispatch.HeartbeatRequest;
import dev.svc.server.store.StoredAgent;
import dev.svc.core.protocol.CertificateAnswer;
import dev.svc.core.protocol.Heartbeat;
import dev.svc.core.protocol.Registration;
import dev.svc.core.protocol.ResultReport;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.AgentStore;
import io.vertx.core.Vertx;
import dev.svc.core.Ids;
import dev.svc.core.domain.AgentSettings;
import dev.svc.core.domain.AgentStatus;
import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.EventType;
import dev.svc.core.tls.IssuedCertificate;
import dev.svc.server.store.LiveFleet;
import dev.svc.server.store.NewAgent;
import dev.svc.server.store.Sql;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;


/**
 * The agents' own routes (protocol.md section 2): registration, certificates from a CSR,
 * heartbeats and result reports. Each needs the agent's token (or the global one) and, on HTTPS,
 * registration and heartbeat a certificate naming the agent; the token is prechecked before the body.
 */
public final class AgentProtocolRoutes implements ApiArea {

  /** A heartbeat is answered by the node that took it: that node keeps the agent's liveness in memory. */
  private static final DeliveryOptions THIS_NODE =
      new DeliveryOptions().setLocalOnly(true);

  private final Vertx vertx;
  private final AgentStore agents;
  private final EventLog events;
  private final Guard guard;
  private final CertificateAuthority ca;
  private final boolean mutualTls;
  private final ResultSubmission submission;

  public AgentProtocolRoutes(Vertx vertx, AgentStore agents, EventLog events, Guard guard, CertificateAuthority ca, boolean mutualTls,
      ResultSubmission submission) {
    this.vertx = vertx;
    this.agents = agents;
    this.events = events;
    this.guard = guard;
    this.ca = ca;
    this.mutualTls = mutualTls;
    this.submission = submission;
  }

  @Override
  public void mount(Router router, BodyHandler body, BodyHandler largeBody) {
    // a caller without credentials, or with a token no live agent holds, is refused before its body is read
    Handler<RoutingContext> precheck = BeforeBody.of(guard.agentPrecheck(agents::tokenState));
    router.post("/api/v1/agents/register").handler(precheck).handler(body).handler(Handlers.async(this::register));
    router.post("/api/v1/agents/certificate").handler(precheck).handler(body).handler(Handlers.async(this::certificate));
    router.post("/api/v1/agents/:id/heartbeat").handler(precheck).handler(body).handler(Handlers.async(this::heartbeat));
    router.post("/api/v1/agents/:id/results").handler(precheck).handler(largeBody)
        .handler(Handlers.async(this::submitResult));
  }

  // --- registration and heartbeat (the agent protocol) ---

  private Future<?> register(RoutingContext ctx) {
    if (mutualTls) {
      ClientCertificates.require(ctx, ca, agents::certificateRevoked);
    }
    Registration registration = Body.wire(() -> Registration.parse(Body.of(ctx).json()));
    if (mutualTls) {
      ClientCertificates.requireFor(ctx, ca, agents::certificateRevoked, guard, registration.name());
    }
    String bearer = Guard.bearer(ctx);
    return register(ctx, registration, bearer, true);
  }

  /** A first registration that loses a race for its name on the unique index becomes a re-registration. */
  private Future<Void> register(RoutingContext ctx, Registration registration, String bearer, boolean mayRetry) {
    return agents.byName(registration.name()).compose(existing -> {
      if (existing.isPresent()) {
        return reRegister(ctx, existing.get(), registration, bearer);
      }
      return firstRegistration(ctx, registration, bearer).recover(err -> mayRetry && Sql.isUniqueViolation(err)
          ? register(ctx, registration, bearer, false) : Future.failedFuture(err));
    });
  }

  /**
   * A name no live agent has. On a server with a global token it needs that token: an agent the
   * operator deleted has its token revoked (the precheck refused it), and comes back only when the
   * operator provisions it again. On an open server the presented token is bound (trust on first use).
   */
  private Future<Void> firstRegistration(RoutingContext ctx, Registration registration, String bearer) {
    if (!guard.hasGlobalToken() || (bearer != null && guard.isGlobalToken(bearer))) {
      return insertRegistration(ctx, registration, bearer);
    }
    if (bearer == null) {
      throw guard.refuse(ctx,
          ApiError.unauthorized("Authentication required: register with the server's token or one it issued"), false);
    }
    throw guard.refuse(ctx,
        ApiError.forbidden("Unknown token: on this server an agent registers with a token the server issued"), true);
  }

  private Future<Void> insertRegistration(RoutingContext ctx, Registration registration, String bearer) {
    boolean ownToken = bearer != null && !guard.isGlobalToken(bearer);
    NewAgent agent = new NewAgent(Ids.newId(), registration, AgentStatus.ONLINE.wireName(), false,
        ownToken ? Ids.sha256Hex(bearer) : null, ownToken ? Tokens.prefix(bearer) : null);
    return AgentNames.requireNameIsNoAgentId(agents, registration.name()).compose(v -> agents.insert(agent))
        .compose(v -> registered(ctx, agent.id(), registration.name()));
  }

  /**
   * A known name registers again. A test agent's name is never taken (409): test agents are the
   * server's, with no token and no port. A name bound to a token needs that token or the global
   * one. An agent registered without a token on an open server re-registers without one; a token
   * presented for it is refused (403) rather than bound, or the first caller to present any token
   * would own the agent: an operator gives it a token with rotate-token instead.
   */
  private Future<Void> reRegister(RoutingContext ctx, StoredAgent agent, Registration registration, String bearer) {
    String name = agent.name();
    String id = agent.id();
    if (agent.isTestAgent()) {
      throw ApiError.conflict("'" + name + "' is a test agent, simulated by this server; a real agent cannot"
          + " register under its name: choose another name");
    }
    String hash = agent.tokenHash();
    boolean global = bearer != null && guard.isGlobalToken(bearer);
    if (hash != null || guard.hasGlobalToken()) {
      if (bearer == null) {
        throw guard.refuse(ctx,
            ApiError.unauthorized("Authentication required: this agent name is bound to a token"), false);
      }
      if (!global && !Tokens.matchesHash(bearer, hash)) {
        throw guard.refuse(ctx,
            ApiError.forbidden("Token does not match the one bound to agent '" + name + "'"), true);
      }
    } else if (bearer != null) {
      throw guard.refuse(ctx, ApiError.forbidden("Agent '" + name + "' was registered without a token and"
          + " a registration cannot bind one to it; give it a token with POST /api/v1/agents/" + id
          + "/rotate-token and configure the agent with that token"), false);
    }
    return agents.updateRegistration(id, registration).compose(v -> registered(ctx, id, name));
  }

  private Future<Void> registered(RoutingContext ctx, String id, String name) {
    return agents.settings(id).compose(settings -> agentStatusEvent(id, name, AgentStatus.ONLINE.wireName())
        .map(v -> {
          Replies.json(ctx, 201, new Registration.Answer(id, AgentSettings.heartbeatIntervalS(settings)).toJson());
          return (Void) null;
        }));
  }

  private Future<?> heartbeat(RoutingContext ctx) {
    if (mutualTls) {
      ClientCertificates.require(ctx, ca, agents::certificateRevoked);
    }
    // every metric within what the hardware can report: the dashboard and the dispatcher trust them
    Heartbeat beat = Body.wire(() -> Heartbeat.parse(Body.orEmpty(ctx).json()));
    // the agent comes from memory (LiveFleet): a heartbeat that changes nothing never waits on the database
    String idOrName = ctx.pathParam("id");
    LiveFleet.Agent agent = agents.fleet().liveByIdOrName(idOrName)
        .orElseThrow(() -> ApiError.notFound("Agent '" + idOrName + "' not found; register again"));
    guard.agentWithTokenHash(ctx, agent.tokenHash());
    if (agent.testAgent()) {
      throw ApiError.conflict("'" + agent.name() + "' is a test agent, simulated by this server;"
          + " it takes no heartbeats");
    }
    if (mutualTls) {
      ClientCertificates.requireFor(ctx, ca, agents::certificateRevoked, guard, agent.name());
    }
    String id = agent.id();
    return vertx.eventBus().<JsonObject>request(EventAddresses.AGENT_HEARTBEAT, new HeartbeatRequest(id, beat).toJson(),
            THIS_NODE)
        .map(reply -> {
          Replies.ok(ctx, new JsonObject().put("ack", true).put("agent_id", id).mergeIn(reply.body()));
          return null;
        });
  }

  private Future<Void> agentStatusEvent(String id, String name, String status) {
    return events.append(id, EventType.AGENT_STATUS,
        new JsonObject().put("agent_id", id).put("name", name).put("status", status)).mapEmpty();
  }

  // --- certificates ---

  /**
   * Issues a client certificate from a CSR. The agent's own token obtains one certificate (single
   * use: a stolen token cannot enrol another host later); enrolling again needs a rotated token.
   * The global token (the operator) may issue more. Every certificate issued is recorded, so that
   * deleting the agent or rotating its token revokes it.
   */
  private Future<?> certificate(RoutingContext ctx) {
    Body body = Body.of(ctx);
    String csr = body.requireString("csr");
    String name = TextFields.line("name", body.requireString("name"), 255);
    return agents.byName(name).compose(existing -> {
      StoredAgent agent = existing.orElse(null);
      if (agent == null && guard.hasGlobalToken()) {
        guard.global(ctx);
      } else {
        guard.agent(ctx, agent);
      }
      if (ca == null || !ca.canIssue()) {
        throw new ApiError(409, "This server has no CA key to issue agent certificates (TLS is off or the CA is external)");
      }
      String bearer = Guard.bearer(ctx);
      String hash = agent == null ? null : agent.tokenHash();
      String enrolment = bearer != null && !guard.isGlobalToken(bearer) && Tokens.matchesHash(bearer, hash)
          ? hash : null;
      return vertx.executeBlocking(() -> issue(csr, name)).compose(issued -> agents
          .recordCertificate(agent == null ? null : agent.id(), name, enrolment, issued.fingerprint(),
              issued.notAfter())
          .map(recorded -> {
            if (!recorded) {
              throw guard.refuse(ctx, ApiError.forbidden("This token has already obtained a certificate for agent '"
                  + name + "': enrolment is single use. To enrol the host again, rotate the agent's token (its page, or"
                  + " POST /api/v1/agents/" + agent.id() + "/rotate-token) and run svc-agent init with the"
                  + " new token"), false);
            }
            return issued;
          }));
    }).map(issued -> {
      Replies.json(ctx, 201, new CertificateAnswer(issued.certificatePem(), issued.caCertificatePem(),
          issued.fingerprint(), dev.svc.core.Timestamps.format(issued.notAfter())).toJson());
      return null;
    });
  }

  private IssuedCertificate issue(String csr, String name) {
    try {
      return ca.issueFromCsr(csr, name);
    } catch (IllegalArgumentException e) {
      throw ApiError.badRequest(e.getMessage());
    }
  }

  private Future<?> submitResult(RoutingContext ctx) {
    ResultReport report = Body.wire(() -> ResultReport.parse(Body.of(ctx).json()));
    String agentRef = ctx.pathParam("id");
    return agents.byIdOrName(agentRef).compose(found -> {
      StoredAgent agent = found.orElseThrow(() -> ApiError.notFound("Agent '" + agentRef + "' not found"));
      guard.agent(ctx, agent);
      return submission.submit(agent, report);
    }).map(reply -> {
      Replies.json(ctx, 202, reply);
      return null;
    });
  }
}
