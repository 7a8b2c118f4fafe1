package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Docker clients over docker-java's httpclient5 transport ({@code DOCKER_HOST}, default
 * {@code unix:///var/run/docker.sock}). Every call on a client blocks: make them from worker
 * threads, never from an event loop.
 */
public final class DockerClients {

  private DockerClients() {}

  /** A client for the configured Docker host; nothing is contacted yet. */
  public static DockerClient connect() {
    DefaultDockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder().build();
    ApacheDockerHttpClient http = new ApacheDockerHttpClient.Builder()
        .dockerHost(config.getDockerHost())
        .sslConfig(config.getSSLConfig())
        .maxConnections(16)
        .connectionTimeout(Duration.ofSeconds(5))
        // image pulls stream for as long as they take; the callbacks see progress
        .responseTimeout(Duration.ofMinutes(30))
        .build();
    return DockerClientImpl.getInstance(config, http);
  }

  /** Where clients connect to, for messages. */
  public static String host() {
    return DefaultDockerClientConfig.createDefaultConfigBuilder().build().getDockerHost().toString();
  }

  /**
   * Pings the daemon.
   *
   * @throws IllegalStateException naming the Docker host and the cause when it does not answer
   */
  public static void requireReachable(DockerClient docker) {
    try {
      docker.pingCmd().exec();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Docker is not reachable at " + host() + ": " + rootMessage(e)
              + " (is dockerd running? On a machine without an init system, scripts/start-dockerd starts it).",
          e);
    }
  }

  /** The innermost cause's message; for a daemon's error answer, just the daemon's message. */
  public static String rootMessage(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    if (message == null || message.isBlank()) {
      return root.getClass().getSimpleName();
    }
    Matcher daemon = DAEMON_ERROR.matcher(message.strip());
    if (daemon.matches()) {
      return daemon.group(1).replace("\\\"", "\"").replace("\\\\", "\\");
    }
    return message.strip();
  }

  /** How docker-java words an error answer: {@code Status 500: {"message":"…"}}. */
  private static final Pattern DAEMON_ERROR = Pattern.compile("Status \\d+: \\{\"message\":\"(.*)\"}");
}
