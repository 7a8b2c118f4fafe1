package dev.svc.bench.perf;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * llama.cpp's llama-server serving a model on 127.0.0.1 and a free port, for {@link ClientComparison}:
 * the real engine whose own {@code prompt_ms} a client's TTFT is set beside. Started with the
 * arguments of engines.yaml's native llama_cpp command; its output goes to a log file.
 */
final class LlamaServerProcess implements AutoCloseable {

  /** The name requests give the model (llama-server's {@code -a}). */
  static final String MODEL_NAME = "tiny";

  private final Process process;
  private final int port;

  private LlamaServerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the binary on the model and waits until its /health answers 200 (the model is loaded). */
  static LlamaServerProcess start(Path binary, Path model, Path log) throws IOException, InterruptedException {
    if (!Files.isExecutable(binary)) {
      throw new IOException(binary + " is not an executable llama-server (set SVC_LLAMA_SERVER to one;"
          + " scripts/build-llama-server builds it)");
    }
    int port = freePort();
    Process process = new ProcessBuilder(List.of(binary.toString(), "-m", model.toString(), "--host", "127.0.0.1",
        "--port", String.valueOf(port), "-a", MODEL_NAME)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    LlamaServerProcess server = new LlamaServerProcess(process, port);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!server.healthy()) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        server.close();
        throw new IOException("llama-server did not become healthy within 60 s; its output: " + log);
      }
      Thread.sleep(100);
    }
    return server;
  }

  int port() {
    return port;
  }

  private boolean healthy() {
    try {
      HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/health").toURL()
          .openConnection();
      connection.setConnectTimeout(1000);
      connection.setReadTimeout(1000);
      try {
        return connection.getResponseCode() == 200;
      } finally {
        connection.disconnect();
      }
    } catch (IOException notYet) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
