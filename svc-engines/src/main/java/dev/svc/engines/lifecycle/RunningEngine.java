package dev.svc.engines.lifecycle;

import dev.svc.engines.EngineSpec;
import dev.svc.engines.codec.EngineCodec;
import java.net.URI;

/**
 * An engine that passed its health check, as the benchmark sees it.
 *
 * @param engine the catalog entry
 * @param containerId Docker's id of the container
 * @param containerName {@code kitt-<timestamp>}
 * @param port the port it serves on, on this host
 * @param modelName the model name to put in requests
 * @param codec how to build requests and read the engine's streamed answers
 * @param gpusRequested whether the container was given the host's GPUs
 */
public record RunningEngine(
    EngineSpec engine,
    String containerId,
    String containerName,
    int port,
    String modelName,
    EngineCodec codec,
    boolean gpusRequested) {

  /** {@code http://127.0.0.1:<port>}: containers share the host's network. */
  public URI baseUri() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The URI of a path on the engine, e.g. {@code uri(codec.path(request))}. */
  public URI uri(String path) {
    return baseUri().resolve(path);
  }
}
