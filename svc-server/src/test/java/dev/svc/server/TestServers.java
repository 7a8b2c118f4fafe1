package dev.svc.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The server of one test and its folders: before each test a fresh temporary folder with {@code home/}
 * and {@code results/} paths, after it (passed or failed) the server closed and the folder deleted.
 * Register it as {@code @RegisterExtension final TestServers servers = new TestServers(o -> o.insecure());},
 * the function giving what every server of the class shares; a test starts its server with
 * {@link #start()} or {@link #start(TestServer.Options)}.
 */
public final class TestServers implements BeforeEachCallback, AfterEachCallback {

  private final UnaryOperator<TestServer.Options> defaults;
  private Path dir;
  private TestServer server;

  public TestServers(UnaryOperator<TestServer.Options> defaults) {
    this.defaults = defaults;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory("svc-test-");
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    try {
      if (server != null) {
        server.close();
      }
    } finally {
      server = null;
      if (dir != null) {
        delete(dir);
        dir = null;
      }
    }
  }

  public TestServer start() {
    return start(new TestServer.Options());
  }

  /** Starts the test's server on {@link #home()} and {@link #results()}: these options, then the class's defaults. */
  public TestServer start(TestServer.Options options) {
    if (server != null) {
      throw new IllegalStateException("This test has started its server already");
    }
    server = TestServer.start(home(), defaults.apply(options.resultsDir(results())));
    return server;
  }

  /** The server that {@link #start} started in this test. */
  public TestServer server() {
    if (server == null) {
      throw new IllegalStateException("No server yet: the test calls start() first");
    }
    return server;
  }

  /** The test's temporary folder, for whatever else the test writes (model folders, manifests). */
  public Path dir() {
    return folder();
  }

  public Path home() {
    return folder().resolve("home");
  }

  /** The results folder the server reads; a test may write metrics files there before it starts the server. */
  public Path results() {
    return folder().resolve("results");
  }

  private Path folder() {
    if (dir == null) {
      throw new IllegalStateException("The folders exist only while a test runs");
    }
    return dir;
  }

  private static void delete(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(path);
      }
    }
  }
}
