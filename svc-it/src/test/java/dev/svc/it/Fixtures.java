package dev.svc.it;

import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Image;
import dev.svc.engines.lifecycle.DockerClients;

/** What the end-to-end tests share: the real engine set-up of an agent, quick tests, their logs. */
final class Fixtures {

  /** A suite long enough to act on while it runs: sequential requests on the slower tiny model, about a minute. */
  static final String SOAK_SUITE = """
      description: A long sequential run, so that tests can act while a benchmark runs
      benchmarks:
        throughput:
          iterations: 400
          max_tokens: 128
          load: sequential
      """;

  private Fixtures() {
  }

  /** Points the agent's llama_cpp at the local CPU image and adds the soak suite to its home. */
  static AgentProcess realEngine(AgentProcess agent) {
    try {
      LlamaServerImage.requireDockerWithImage().close();
      LlamaServerImage.writeEngineOverride(agent.home());
      Files.createDirectories(agent.home().resolve("suites"));
      Files.writeString(agent.home().resolve("suites/soak.yaml"), SOAK_SUITE);
      return agent;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The tiny fast model (every request runs to max_tokens) at {@code file}. */
  static Path tinyModel(Path file) {
    try {
      Files.createDirectories(file.getParent());
      return TinyLlamaGguf.write(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The slower tiny model (about 500 tokens/s on one thread), for runs that must last. */
  static Path timingModel(Path file) {
    try {
      Files.createDirectories(file.getParent());
      return TinyLlamaGguf.write(file, TinyLlamaGguf.Shape.TIMING, 42L);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Queues a quick test of llama_cpp for the agent; returns the test. */
  static JsonObject quickTest(ServerProcess server, AgentProcess agent, Path model, String suite) {
    Http.Response created = server.api().post("/api/v1/quicktest", new JsonObject().put("agent_id", agent.id())
        .put("model_path", model.toString()).put("engine_name", "llama_cpp").put("benchmark_name", "throughput")
        .put("suite_name", suite));
    if (created.status() != 202) {
      throw new AssertionError("Queueing a quick test: " + created);
    }
    return created.json();
  }

  static JsonObject test(ServerProcess server, String testId) {
    Http.Response response = server.api().get("/api/v1/quicktest/" + testId);
    if (response.status() != 200) {
      throw new AssertionError("GET quick test " + testId + ": " + response);
    }
    return response.json();
  }

  /** Waits until the test has ended; returns it. */
  static JsonObject awaitEnd(ServerProcess server, AgentProcess agent, String testId, Duration timeout) {
    JsonObject[] last = new JsonObject[1];
    try {
      Processes.await("quick test " + testId + " to end", timeout, () -> {
        last[0] = test(server, testId);
        return "completed".equals(last[0].getString("status")) || "failed".equals(last[0].getString("status"));
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last seen " + last[0] + "\n" + agent.logTail(), e);
    }
    return last[0];
  }

  /** Waits until the test has this status. */
  static void awaitStatus(ServerProcess server, AgentProcess agent, String testId, String status, Duration timeout) {
    JsonObject[] last = new JsonObject[1];
    try {
      Processes.await("quick test " + testId + " to be " + status, timeout, () -> {
        last[0] = test(server, testId);
        return status.equals(last[0].getString("status"));
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last seen " + last[0] + "\n" + agent.logTail(), e);
    }
  }

  /** The log lines the server stored for a test, in order. */
  static java.util.List<String> serverLines(ServerProcess server, String testId) {
    JsonArray lines = server.api().get("/api/v1/quicktest/" + testId + "/logs").json().getJsonArray("lines");
    java.util.List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      out.add(lines.getJsonObject(i).getString("line"));
    }
    return out;
  }

  /** Containers (running or not) made from {@code image}. */
  static long containersOf(String image) {
    try (var docker = dev.svc.engines.lifecycle.DockerClients.connect()) {
      return docker.listContainersCmd().withShowAll(true).exec().stream().filter(c -> image.equals(c.getImage())).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The engine containers (any state) that mount the agent's model storage: this agent's, whatever
   * other tests run on the same Docker engine meanwhile.
   */
  static long engineContainersOf(AgentProcess agent) {
    try (var docker = dev.svc.engines.lifecycle.DockerClients.connect()) {
      return LlamaServerImage.containersMounting(docker, agent.modelStorage()).size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every tag on the Docker engine and its image id. */
  static Map<String, String> images() throws IOException {
    try (DockerClient docker = DockerClients.connect()) {
      Map<String, String> out = new TreeMap<>();
      for (Image image : docker.listImagesCmd().exec()) {
        if (image.getRepoTags() != null) {
          for (String tag : image.getRepoTags()) {
            if (!tag.equals("<none>:<none>")) {
              out.put(tag, image.getId());
            }
          }
        }
      }
      return out;
    }
  }

  /** Removes the test's tags, and puts svc:latest back where it was (other tests may rely on its absence). */
  static void restoreTags(String previousLatest, String... tags) throws IOException {
    try (DockerClient docker = DockerClients.connect()) {
      Map<String, String> now = images();
      for (String tag : tags) {
        if (now.containsKey(tag)) {
          docker.removeImageCmd(tag).withNoPrune(false).exec();
        }
      }
      if (previousLatest != null) {
        docker.tagImageCmd(previousLatest, "svc", "latest").withForce(true).exec();
      } else if (now.containsKey("svc:latest")) {
        docker.removeImageCmd("svc:latest").exec();
      }
    }
  }

  /** Relative path → SHA-256 (files) or link target (links) or "dir", for everything under {@code root}. */

  /** Removes {@code svc:latest} when a test left it behind, so that an agent takes the local svc run path. */
  static void withoutTheSvcImage() throws IOException {
    try (DockerClient docker = DockerClients.connect()) {
      if (images().containsKey("svc:latest")) {
        docker.removeImageCmd("svc:latest").exec();
      }
    }
  }

  /** Containers made from {@code image} since {@code epochSecond}, from the Docker engine's event log. */
  static long containersCreatedSince(long epochSecond, String image) throws Exception {
    try (DockerClient docker = DockerClients.connect()) {
      java.util.List<com.github.dockerjava.api.model.Event> events = new java.util.ArrayList<>();
      docker.eventsCmd().withSince(String.valueOf(epochSecond)).withUntil(String.valueOf(java.time.Instant.now().getEpochSecond()))
          .withEventFilter("create").withEventTypeFilter(com.github.dockerjava.api.model.EventType.CONTAINER)
          .exec(new com.github.dockerjava.api.async.ResultCallback.Adapter<com.github.dockerjava.api.model.Event>() {
            @Override
            public void onNext(com.github.dockerjava.api.model.Event event) {
              events.add(event);
            }
          }).awaitCompletion(30, java.util.concurrent.TimeUnit.SECONDS);
      return events.stream().filter(e -> image.equals(e.getFrom())).count();
    }
  }
}
