package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Frame;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The last lines a container wrote to stdout and stderr, for error messages. */
final class ContainerLogs {

  private ContainerLogs() {}

  /** Up to {@code lines} last lines; a note instead when the logs cannot be read. */
  static List<String> tail(DockerClient docker, String containerId, int lines) {
    StringBuilder text = new StringBuilder();
    QuietCallback<Frame> collect = new QuietCallback<>() {
      @Override
      public void onNext(Frame frame) {
        synchronized (text) {
          text.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
        }
      }
    };
    try {
      docker.logContainerCmd(containerId)
          .withStdOut(true)
          .withStdErr(true)
          .withTail(lines)
          .exec(collect)
          .awaitCompletion(10, TimeUnit.SECONDS);
      if (collect.failure() != null) {
        return List.of("(the container's log could not be read: " + DockerClients.rootMessage(collect.failure()) + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of("(reading the container's log was interrupted)");
    } catch (RuntimeException e) {
      return List.of("(the container's log could not be read: " + DockerClients.rootMessage(e) + ")");
    }
    synchronized (text) {
      List<String> all = text.toString().lines().map(String::stripTrailing).toList();
      return all.isEmpty() ? List.of("(the container wrote nothing)") : all;
    }
  }
}
