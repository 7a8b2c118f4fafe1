package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.hardware.NvidiaSmi;
import dev.svc.bench.hardware.SystemInfo;
import dev.svc.server.web.browser.Browser;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * Issue 16's central loop with real parts: `svc web` over HTTPS with mutual TLS and a global token,
 * agents enrolled with `svc-agent init` and run with `svc-agent start`, the real llama.cpp engine
 * on the real dockerd, the dashboard in headless Chromium.
 */
class AgentEndToEndTest extends WithServer {

  @Test
  void anEnrolledAgentShowsThisMachinesHardwareOnTheAgentsPages() throws Exception {
    try (AgentProcess agent = AgentProcess.enrol(server, "e2e-hardware").start()) {
      JsonObject expected = SystemInfo.collect(new NvidiaSmi("/nonexistent/nvidia-smi")).toJson();
      String cpuModel = expected.getJsonObject("cpu").getString("model");
      assertThat(Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name")).findFirst())
          .hasValueSatisfying(line -> assertThat(line).endsWith(cpuModel));
      Processes.await("the agent to register", Duration.ofSeconds(30),
          () -> server.api().get("/api/v1/agents/" + agent.id()).json().getString("cpu_info") != null);
      JsonObject registered = server.api().get("/api/v1/agents/" + agent.id()).json();
      assertThat(registered.getString("cpu_info")).isEqualTo(cpuModel);
      assertThat(registered.getString("cpu_arch")).isEqualTo("amd64");
      assertThat(registered.getString("environment_type")).isEqualTo(expected.getString("environment_type"));
      long ramBytes = new oshi.SystemInfo().getHardware().getMemory().getTotal();
      assertThat(registered.getDouble("ram_gb")).isBetween(Math.floor(ramBytes / 1e9 / 1.0737) - 1, Math.ceil(ramBytes / 1e9) + 1);
      JsonObject details = registered.getJsonObject("hardware_details");
      assertThat(details.getInteger("cpu_threads")).isEqualTo(Runtime.getRuntime().availableProcessors());

      try (Browser browser = Browser.open(server.url().toString(), server.home().resolve("certs/server.pem"))) {
        browser.open("/login");
        browser.find("input[name=token]").sendKeys(server.token());
        String mark = browser.markPage();
        browser.find("form[action='/login'] button[type=submit]").click();
        browser.waitFor("the login to be answered", d -> !browser.samePage(mark));
        browser.open("/agents");
        WebElement link = browser.waitFor("the agent on /agents", d -> d.findElements(By.linkText("e2e-hardware")).stream()
            .findFirst().orElse(null));
        String row = browser.waitFor("the agent's row", d -> link.findElement(By.xpath("ancestor::tr")).getText());
        assertThat(row).contains("amd64");
        browser.open("/agents/" + agent.id());
        String page = browser.find("main").getText();
        assertThat(page).contains(cpuModel).contains("amd64").contains(expected.getString("environment_type"))
            .contains(expected.getJsonObject("cpu").getInteger("cores") + " cores, "
                + expected.getJsonObject("cpu").getInteger("threads") + " threads")
            .contains(String.valueOf(registered.getValue("ram_gb")));
        browser.screenshot("agent-e2e-detail");
      }
    }
  }

  /**
   * Acceptance 2, the local fallback, with the model workflow: the model sits on the share (here
   * /dev/shm, a real mount point, so no NFS server is needed), is copied to local storage, run by
   * the agent's own svc run against the real llama.cpp container, and the copy is deleted after.
   */
  @Test
  void aQuickTestRunsTheRealEngineThroughTheLocalSvcRunAndItsLogAndResultReachTheServer() throws Exception {
    Fixtures.withoutTheSvcImage();
    Path share = Path.of("/dev/shm");
    Path onShare = Files.createTempDirectory(share, "svc-e2e-share-");
    try (AgentProcess agent = Fixtures.realEngine(AgentProcess.enrol(server, "e2e-fallback")).start()) {
      assertThat(server.api().put("/api/v1/agents/" + agent.id() + "/settings", new JsonObject()
          .put("model_share_mount", share.toString()).put("model_share_source", "fileserver:/models")
          .put("auto_cleanup", true)).status()).isEqualTo(200);
      Path model = Fixtures.tinyModel(onShare.resolve("tiny.gguf"));
      Path copy = agent.modelStorage().resolve(share.relativize(model));
      long containersBefore = Fixtures.engineContainersOf(agent);
      JsonObject queued = Fixtures.quickTest(server, agent, model, "quick");
      String testId = queued.getString("id");
      JsonObject ended = Fixtures.awaitEnd(server, agent, testId, Duration.ofMinutes(4));
      assertThat(ended.getString("status")).as(ended + "\n" + agent.logTail()).isEqualTo("completed");

      List<String> lines = Fixtures.serverLines(server, testId);
      assertThat(lines).isNotEmpty().doesNotHaveDuplicates();
      assertThat(String.join("\n", lines)).contains(onShare.getFileName().toString());
      // the same lines went out as events on the test's SSE stream (replayed here, the stream then ends)
      Http.Response sse = server.api().get("/api/v1/events/stream/" + testId);
      List<String> streamed = sse.body().lines().filter(l -> l.startsWith("data: ")).map(l -> new JsonObject(l.substring(6)))
          .filter(d -> d.containsKey("line")).map(d -> d.getString("line")).collect(Collectors.toList());
      assertThat(streamed).isEqualTo(lines);
      Http.Response local = agent.local("/api/logs/" + queued.getString("command_id"));
      assertThat(local.status()).isEqualTo(200);
      List<String> localLines = local.body().lines().filter(l -> l.startsWith("data: "))
          .map(l -> new JsonObject(l.substring(6)).getString("line")).collect(Collectors.toList());
      assertThat(localLines).isEqualTo(lines);

      String resultId = ended.getString("result_id");
      assertThat(resultId).isNotNull();
      JsonObject result = server.api().get("/api/v1/results/" + resultId).json();
      assertThat(result.getString("agent_id")).isEqualTo(agent.id());
      assertThat(result.encode()).contains("ttft").contains("tpot");
      assertThat(Fixtures.engineContainersOf(agent)).isEqualTo(containersBefore);
      assertThat(copy).as("auto_cleanup deleted the local copy").doesNotExist();
      assertThat(model).as("the share keeps its model").exists();
    } finally {
      Processes.deleteTree(onShare);
    }
  }

  @Test
  void withTheSvcImageBuiltTheQuickTestRunsInTheBenchmarkContainerAndLeavesNoContainer() throws Exception {
    Processes.Run base = Processes.run(new ProcessBuilder(
        Processes.repositoryRoot().resolve("scripts/java-base-image").toString()), Duration.ofMinutes(5));
    assertThat(base.exit()).as(base.toString()).isZero();
    String previousLatest = Fixtures.images().get("svc:latest");
    String tag = "svc-e2e:bench";
    try (AgentProcess agent = Fixtures.realEngine(AgentProcess.enrol(server, "e2e-container")).start()) {
      Processes.Run build = agent.cli("build", "--base-image", "svc-local/java:17", "--tag", tag);
      assertThat(build.exit()).as(build.toString()).isZero();
      Path model = Fixtures.tinyModel(agent.modelStorage().resolve("tiny/tiny.gguf"));
      long llamaBefore = Fixtures.engineContainersOf(agent);
      long since = Instant.now().getEpochSecond() - 1;
      JsonObject queued = Fixtures.quickTest(server, agent, model, "quick");
      JsonObject ended = Fixtures.awaitEnd(server, agent, queued.getString("id"), Duration.ofMinutes(5));
      assertThat(ended.getString("status")).as(ended + "\n" + agent.logTail()).isEqualTo("completed");
      JsonObject result = server.api().get("/api/v1/results/" + ended.getString("result_id")).json();
      assertThat(result.encode()).contains("ttft").contains("tpot");
      assertThat(Fixtures.containersCreatedSince(since, "svc:latest"))
          .as("a benchmark container was made from the svc image").isPositive();
      assertThat(Fixtures.containersOf("svc:latest")).isZero();
      assertThat(Fixtures.engineContainersOf(agent)).isEqualTo(llamaBefore);
    } finally {
      Fixtures.restoreTags(previousLatest, tag);
    }
  }

  @Test
  void svcAgentTestStopEndsARunningTestAndItsEngineWithinFiveSeconds() throws Exception {
    try (AgentProcess agent = Fixtures.realEngine(AgentProcess.enrol(server, "e2e-stop")).start()) {
      Path model = Fixtures.timingModel(agent.modelStorage().resolve("slow/slow.gguf"));
      long containersBefore = Fixtures.engineContainersOf(agent);
      String testId = Fixtures.quickTest(server, agent, model, "soak").getString("id");
      Fixtures.awaitStatus(server, agent, testId, "running", Duration.ofMinutes(2));
      Processes.await("the engine container to run", Duration.ofMinutes(2),
          () -> Fixtures.engineContainersOf(agent) > containersBefore);

      Processes.Run stop = agent.cli("test", "stop", testId);
      Instant stopped = Instant.now();
      assertThat(stop.exit()).as(stop.toString()).isZero();
      Processes.await("the engine container to be gone", Duration.ofSeconds(5),
          () -> Fixtures.engineContainersOf(agent) == containersBefore);
      Processes.await("the test to be failed", Duration.ofSeconds(30),
          () -> "failed".equals(Fixtures.test(server, testId).getString("status")));
      JsonObject test = Fixtures.test(server, testId);
      assertThat(test.getString("error")).isEqualTo("Cancelled by user");
      assertThat(Duration.between(stopped, Instant.now())).isLessThan(Duration.ofSeconds(35));
      assertThat(agent.local(null).json().getBoolean("benchmark_active")).isFalse();
    }
  }

  @Test
  void twoAgentsOnOneMachineTakeTestsOfTheirOwnOnly() throws Exception {
    try (AgentProcess first = Fixtures.realEngine(AgentProcess.enrol(server, "e2e-twin-a")).start();
        AgentProcess second = Fixtures.realEngine(AgentProcess.enrol(server, "e2e-twin-b")).start()) {
      assertThat(first.port()).isNotEqualTo(second.port());
      assertThat(first.home()).isNotEqualTo(second.home());
      Path modelA = Fixtures.tinyModel(first.modelStorage().resolve("a/tiny.gguf"));
      Path modelB = Fixtures.tinyModel(second.modelStorage().resolve("b/tiny.gguf"));
      JsonObject testA = Fixtures.quickTest(server, first, modelA, "quick");
      JsonObject testB = Fixtures.quickTest(server, second, modelB, "quick");
      JsonObject endA = Fixtures.awaitEnd(server, first, testA.getString("id"), Duration.ofMinutes(4));
      JsonObject endB = Fixtures.awaitEnd(server, second, testB.getString("id"), Duration.ofMinutes(4));
      assertThat(endA.getString("status")).as(endA.encode()).isEqualTo("completed");
      assertThat(endB.getString("status")).as(endB.encode()).isEqualTo("completed");
      assertThat(server.api().get("/api/v1/results/" + endA.getString("result_id")).json().getString("agent_id"))
          .isEqualTo(first.id());
      assertThat(server.api().get("/api/v1/results/" + endB.getString("result_id")).json().getString("agent_id"))
          .isEqualTo(second.id());
      // each agent ran only its own: its local log stream knows its command and not the other's
      assertThat(first.local("/api/logs/" + testA.getString("command_id")).body()).contains("data: ");
      assertThat(first.local("/api/logs/" + testB.getString("command_id")).status()).isEqualTo(404);
      assertThat(second.local("/api/logs/" + testB.getString("command_id")).body()).contains("data: ");
      assertThat(second.local("/api/logs/" + testA.getString("command_id")).status()).isEqualTo(404);
      assertThat(first.home().resolve("results")).isNotEqualTo(second.home().resolve("results"));
    }
  }
}
