package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.DockerClient;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A daemon that does not answer is named, with how to start one. */
class DockerClientsTest {

  @TempDir Path dir;

  @Test
  void anUnreachableDaemonIsReportedWithItsAddressAndTheStartScript() throws Exception {
    String socket = "unix://" + dir.resolve("no-docker.sock");
    String before = System.getProperty("DOCKER_HOST");
    System.setProperty("DOCKER_HOST", socket);
    try (DockerClient docker = DockerClients.connect()) {
      assertThat(DockerClients.host()).isEqualTo(socket);
      assertThatThrownBy(() -> DockerClients.requireReachable(docker))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("Docker is not reachable at " + socket + ": ")
          .hasMessageEndingWith("(is dockerd running? On a machine without an init system, scripts/start-dockerd starts it).");
    } finally {
      if (before == null) {
        System.clearProperty("DOCKER_HOST");
      } else {
        System.setProperty("DOCKER_HOST", before);
      }
    }
  }

  @Test
  void theDaemonsErrorAnswerIsReducedToItsMessage() {
    RuntimeException answer = new RuntimeException(
        "Status 500: {\"message\":\"Get \\\"http://127.0.0.1:9/v2/\\\": dial tcp 127.0.0.1:9: connect: connection refused\"}");

    assertThat(DockerClients.rootMessage(new IllegalStateException("wrapped", answer)))
        .isEqualTo("Get \"http://127.0.0.1:9/v2/\": dial tcp 127.0.0.1:9: connect: connection refused");
  }
}
