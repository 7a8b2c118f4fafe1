package dev.svc.engines.lifecycle;

import dev.svc.engines.EngineSpec;
import dev.svc.engines.codec.EngineCodec;
import java.net.URI;
import java.util.List;

/**
 * An engine that passed its health check, as the benchmark sees it.
 *
 * @param engine the catalog entry
 * @param identity the container or local process that serves it
 * @param port the port it serves on, on this host
 * @param modelName the model name to put in requests
 * @param codec how to build requests and read the engine's streamed answers
 * @param gpusRequested whether a container was given the host's GPUs (false for a local process,
 *     which sees whatever GPUs the host has)
 * @param launchArgs what svc started, environment values masked: a container's image and the
 *     words after it in {@code docker run}, or a local process's binary and its arguments
 * @param imageDigest the digest of the image a container runs ({@code repo@sha256:…} when the image
 *     came from a registry, else its local id {@code sha256:…}); null for a local process, or when
 *     Docker could not say
 */
public record RunningEngine(
    EngineSpec engine,
    EngineIdentity identity,
    int port,
    String modelName,
    EngineCodec codec,
    boolean gpusRequested,
    List<String> launchArgs,
    String imageDigest) {

  public RunningEngine {
    launchArgs = List.copyOf(launchArgs);
  }

  /** {@code http://127.0.0.1:<port>}: containers share the host's network, local processes listen there. */
  public URI baseUri() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The URI of a path on the engine, e.g. {@code uri(codec.path(request))}. */
  public URI uri(String path) {
    return baseUri().resolve(path);
  }

  /** Docker's id of the engine's container; only for an engine in a container. */
  public String containerId() {
    return container().id();
  }

  /** The engine container's name, {@code kitt-<timestamp>}; only for an engine in a container. */
  public String containerName() {
    return container().name();
  }

  private EngineIdentity.Container container() {
    if (identity instanceof EngineIdentity.Container container) {
      return container;
    }
    throw new IllegalStateException(engine.name() + " runs as " + identity.name() + ", not in a container.");
  }
}
