package dev.svc.bench.run;

import dev.svc.bench.client.RequestSpec;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import java.util.Objects;

/**
 * A healthy engine as the benchmarks see it: where it listens (over TLS or not, host, port, and the
 * path its API sits under, {@code ""} for the root or else {@code /a/b} with no trailing slash),
 * what it calls the model, how it speaks, and what ran it ({@code image}). {@code trustedCa} is the
 * PEM text of the CA certificates an https engine's certificate must chain to; null trusts the
 * JDK's default store.
 */
public record EngineTarget(boolean tls, String host, int port, String basePath, String modelName, EngineCodec codec,
    String image, String trustedCa) {

  public EngineTarget {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(basePath, "basePath");
    if (!basePath.isEmpty() && (!basePath.startsWith("/") || basePath.endsWith("/"))) {
      throw new IllegalArgumentException("A base path starts with / and does not end with one: '" + basePath + "'");
    }
    if (trustedCa != null && !tls) {
      throw new IllegalArgumentException("A trusted CA means nothing to a plain-HTTP engine");
    }
  }

  /** An engine this run started on this host: plain HTTP, its API at the root. */
  public EngineTarget(String host, int port, String modelName, EngineCodec codec, String image) {
    this(false, host, port, "", modelName, codec, image, null);
  }

  /** Its base URL, e.g. {@code https://gpu-1:8443/llm}, to name it in messages. */
  public String url() {
    return (tls ? "https" : "http") + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + basePath;
  }

  /**
   * The path of an API call ({@code apiPath}, the codec's, e.g. {@code /v1/completions}) under the
   * base path. A base path that ends in {@code /v1} is the OpenAI clients' habit of naming the API
   * version in the base URL, so it is not repeated: {@code /llm/v1} and {@code /v1/completions} give
   * {@code /llm/v1/completions}.
   */
  public String path(String apiPath) {
    String base = basePath.endsWith("/v1") && apiPath.startsWith("/v1/")
        ? basePath.substring(0, basePath.length() - "/v1".length()) : basePath;
    return base + apiPath;
  }

  /**
   * The path of one of the engine's own calls outside the OpenAI API (e.g. {@code /version}) under
   * the base path, less the {@code /v1} that names the API version: {@code /llm/v1} and
   * {@code /version} give {@code /llm/version}.
   */
  public String enginePath(String ownPath) {
    String base = basePath.endsWith("/v1") ? basePath.substring(0, basePath.length() - "/v1".length()) : basePath;
    return base + ownPath;
  }

  /** A streamed generation in the engine's dialect, sent under its base path. */
  public RequestSpec streamed(GenerationRequest request) {
    RequestSpec atRoot = RequestSpec.streamed(codec, request);
    return new RequestSpec(path(atRoot.path()), atRoot.body(), atRoot.streaming(), atRoot.decoder());
  }

  @Override
  public String toString() {
    return "EngineTarget[" + url() + ", model " + modelName + ", image " + image
        + (trustedCa == null ? "" : ", trusting a given CA") + "]";
  }
}
