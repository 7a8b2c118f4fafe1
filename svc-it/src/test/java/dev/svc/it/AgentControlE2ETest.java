package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.daemon.AgentDaemon;
import dev.svc.core.Timestamps;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import oshi.SystemInfo;

/**
 * The agent's control plane against a real {@code svc web} over HTTPS with mutual TLS and a global
 * token (issue 16, acceptance 1 and 5): it registers with this machine's real hardware, heartbeats
 * on the interval the server sets, takes a settings change on the next heartbeat, and when deleted
 * on the server it registers again and adopts the new canonical id without a restart.
 *
 * <p>The agent is enrolled with the real {@code svc-agent init}; its daemon runs in this JVM
 * through {@link AgentDaemon#start}, the call {@code svc-agent start} makes.
 */
class AgentControlE2ETest {

  static ServerProcess server;

  @BeforeAll
  static void startServer() {
    server = ServerProcess.start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  /** The agent's config with its model storage inside its temporary HOME, and {@code token}. */
  static AgentConfig inItsHome(AgentProcess agent, AgentConfig c, String token) {
    return new AgentConfig(c.server(), token, c.name(), c.port(), agent.dir().resolve("models").toString(),
        c.shareSource(), c.shareMount(), c.caFingerprint(), c.tls(), agent.dir().resolve("no-nvidia-smi").toString(),
        c.mount());
  }

  static AgentDaemon start(AgentProcess agent) throws Exception {
    return AgentDaemon.start(new AgentHome(agent.home()), agent.config(), false)
        .toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
  }

  static void stop(AgentDaemon daemon) throws Exception {
    daemon.stop().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  @Test
  void registersWithItsHardwareHeartbeatsTakesSettingsAndSurvivesDeletion() throws Exception {
    try (AgentProcess agent = AgentProcess.enrol(server, "gpu-node-control")) {
      // the server's global token: a token the server issued dies with the agent it was issued for,
      // while the global token lets the deleted agent register again (acceptance 5)
      agent.configure(c -> inItsHome(agent, c, server.token()));
      Http api = server.api();
      assertThat(api.put("/api/v1/agents/" + agent.id() + "/settings", new JsonObject().put("heartbeat_interval_s", 10))
          .status()).isEqualTo(200);
      AgentDaemon daemon = start(agent);
      try {
        // acceptance 1: registered over mTLS, with this machine's real CPU, cores, RAM, arch, environment
        assertThat(daemon.agentId()).isEqualTo(agent.id());
        JsonObject shown = api.get("/api/v1/agents/" + agent.id()).json();
        var cpu = new SystemInfo().getHardware().getProcessor();
        assertThat(shown.getString("status")).isIn("online", "idle");
        assertThat(shown.getString("cpu_info")).isEqualTo(cpu.getProcessorIdentifier().getName().trim());
        assertThat(shown.getString("cpu_arch")).isEqualTo("amd64");
        long ramGb = Math.round(new SystemInfo().getHardware().getMemory().getTotal() / 1e9);
        assertThat(shown.getInteger("ram_gb")).isBetween((int) ramGb - 1, (int) ramGb + 1);
        assertThat(shown.getString("environment_type")).isIn("native_linux", "docker", "container", "wsl2");
        JsonObject details = shown.getJsonObject("hardware_details");
        assertThat(details.getInteger("cpu_cores")).isEqualTo(cpu.getPhysicalProcessorCount());
        assertThat(details.getInteger("cpu_threads")).isEqualTo(cpu.getLogicalProcessorCount());
        assertThat(shown.getInteger("port")).isEqualTo(agent.port());

        // its own API answers over HTTPS with a certificate the server's CA signed
        Http.Response status = agent.local("/api/status");
        assertThat(status.status()).as(status.toString()).isEqualTo(200);
        assertThat(status.json().getString("name")).isEqualTo("gpu-node-control");
        assertThat(status.json().getBoolean("running")).isTrue();
        assertThat(status.json().getJsonObject("storage").getInteger("model_count")).isZero();

        // heartbeats on the 10 s interval: last_heartbeat_at moves, about 10 s apart
        Instant first = awaitNewHeartbeat(api, agent.id(), null);
        Instant second = awaitNewHeartbeat(api, agent.id(), first);
        assertThat(Duration.between(first, second)).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(25));
        JsonObject beat = api.get("/api/v1/agents/" + agent.id()).json();
        assertThat(beat.getValue("storage_gb_free")).isNotNull();
        assertThat(beat.getValue("uptime_s")).isNotNull();

        // a settings change reaches the agent on its next heartbeat, applied and cached
        Path cache = new AgentHome(agent.home()).settingsCache();
        assertThat(api.put("/api/v1/agents/" + agent.id() + "/settings", new JsonObject().put("auto_cleanup", false))
            .status()).isEqualTo(200);
        Processes.await("the agent to take auto_cleanup=false", Duration.ofSeconds(40),
            () -> "false".equals(cached(cache).getString("auto_cleanup")));
        assertThat(cached(cache).getString("heartbeat_interval_s")).isEqualTo("10");

        // acceptance 5: deleted on the server, the next heartbeat gets 404; it registers again, same process
        String oldId = agent.id();
        assertThat(api.delete("/api/v1/agents/" + oldId).status()).isEqualTo(200);
        Processes.await("the agent to register again under a new id", Duration.ofSeconds(60),
            () -> daemon.agentId() != null && !daemon.agentId().equals(oldId));
        String newId = daemon.agentId();
        JsonObject again = api.get("/api/v1/agents/" + newId).json();
        assertThat(again.getString("name")).isEqualTo("gpu-node-control");
        assertThat(again.getBoolean("deleted")).isFalse();
        assertThat(again.getString("cpu_arch")).isEqualTo("amd64");
        // and it keeps heartbeating under the new id
        Instant afterReRegistration = awaitNewHeartbeat(api, newId, null);
        awaitNewHeartbeat(api, newId, afterReRegistration);
      } finally {
        stop(daemon);
      }
    }
  }

  private static JsonObject cached(Path cache) {
    try {
      return Files.isRegularFile(cache) ? new JsonObject(Files.readString(cache)) : new JsonObject();
    } catch (Exception e) {
      return new JsonObject();
    }
  }

  /** Waits for a heartbeat after {@code after} (any when null) and returns its time. */
  private static Instant awaitNewHeartbeat(Http api, String agentId, Instant after) {
    Instant[] seen = {null};
    Processes.await("a heartbeat of " + agentId + " after " + after, Duration.ofSeconds(40), () -> {
      Http.Response response = api.get("/api/v1/agents/" + agentId);
      if (response.status() != 200) {
        return false;
      }
      String last = response.json().getString("last_heartbeat_at");
      Instant at = last == null ? null : Timestamps.parse(last).orElse(null);
      seen[0] = at;
      return at != null && (after == null || at.isAfter(after));
    });
    return seen[0];
  }
}
