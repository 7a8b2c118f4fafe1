package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.core.Timestamps;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import oshi.SystemInfo;

/**
 * The agent's control plane against a real {@code svc web} over HTTPS with mutual TLS and a global
 * token (issue 16, acceptance 1 and 5): it registers with this machine's real hardware, heartbeats
 * on the interval the server sets, takes a settings change on the next heartbeat, and when deleted
 * on the server it is shut out (its token revoked) and keeps running without registering again.
 *
 * <p>The agent is enrolled with the real {@code svc-agent init} and runs as {@code svc-agent start
 * --foreground} in its own process.
 */
class AgentControlE2ETest extends WithServer {

  /** The agent's config with its model storage inside its temporary HOME, and {@code token}. */
  static AgentConfig inItsHome(AgentProcess agent, AgentConfig c, String token) {
    return new AgentConfig(c.server(), token, c.name(), c.port(), c.bind(), agent.dir().resolve("models").toString(),
        c.shareSource(), c.shareMount(), c.caFingerprint(), c.tls(), agent.dir().resolve("no-nvidia-smi").toString(),
        c.mount());
  }

  @Test
  void registersWithItsHardwareHeartbeatsTakesSettingsAndIsShutOutWhenDeleted() throws Exception {
    try (AgentProcess agent = AgentProcess.enrol(server, "gpu-node-control")) {
      agent.configure(c -> inItsHome(agent, c, c.token()));
      Http api = server.api();
      assertThat(api.put("/api/v1/agents/" + agent.id() + "/settings", new JsonObject().put("heartbeat_interval_s", 10))
          .status()).isEqualTo(200);
      agent.start();
      long pid = agent.pid();

      // acceptance 1: registered over mTLS, with this machine's real CPU, cores, RAM, arch, environment
      Processes.await("the agent to register", Duration.ofSeconds(60),
          () -> api.get("/api/v1/agents/" + agent.id()).json().getString("cpu_info") != null);
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

      // its own API answers over HTTPS
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

      // deleted on the server, the agent is shut out: its token is revoked, so its next heartbeat is
      // refused (403, not the 404 that would make it register again) and no new agent of its name
      // appears; the daemon lives on, reporting the refusal, until an operator enrols it again
      String oldId = agent.id();
      assertThat(api.delete("/api/v1/agents/" + oldId).status()).isEqualTo(200);
      Processes.await("the agent's heartbeat to be refused as revoked", Duration.ofSeconds(60),
          () -> agent.logTail().contains("Heartbeat failed: server answered 403") && agent.logTail().contains("revoked"));
      JsonArray agents = api.get("/api/v1/agents").array();
      assertThat(agents.stream().map(JsonObject.class::cast).map(a -> a.getString("name")))
          .doesNotContain("gpu-node-control");
      assertThat(agent.logTail()).doesNotContain("registering again");
      assertThat(agent.isAlive()).isTrue();
      assertThat(agent.pid()).isEqualTo(pid);
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
