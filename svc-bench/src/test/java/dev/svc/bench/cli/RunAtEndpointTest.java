package dev.svc.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.VertxTest;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.ServerCertificate;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code svc run --endpoint} against an engine behind a reverse proxy, as engines are often
 * published: the engine emulator on plain HTTP, and in front of it a real HTTPS (or HTTP) server on
 * 127.0.0.1 that serves it under {@code /prefix} and records every request it is sent. Its
 * certificate is issued by a CA of the test's own, which the JDK does not trust.
 */
class RunAtEndpointTest extends VertxTest {

  private static final String PREFIX = "/prefix";

  @TempDir
  Path temp;

  private EngineEmulator emulator;
  private HttpClient upstream;
  private CertificateAuthority ca;
  /** What the proxies were sent, in order. */
  private final List<Seen> seen = new CopyOnWriteArrayList<>();

  private record Seen(String method, String path, boolean tls) {
  }

  @BeforeEach
  void start() throws Exception {
    emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(2, 1, 16)));
    upstream = vertx.createHttpClient();
    ca = CertificateAuthority.loadOrCreate(temp.resolve("ca"));
  }

  @Test
  void anHttpsEndpointWithAPrefixIsBenchmarkedOverTlsUnderItsPrefix() throws Exception {
    String endpoint = "https://127.0.0.1:" + proxy(Set.of("localhost", "127.0.0.1")).actualPort() + PREFIX;
    Path out = temp.resolve("https");

    Captured run = run("--endpoint", endpoint, "--ca", ca.caFile().toString(), "-e", "llama_cpp", "-s", "quick",
        "-o", out.toString());

    assertThat(run.exit()).as(run.stderr()).isZero();
    // its version asked once under the prefix, then the quick suite's 20 requests and the 5 of its warmup
    assertThat(seen).hasSize(26).first().isEqualTo(new Seen("GET", PREFIX + "/props", true));
    assertThat(seen.subList(1, 26)).containsOnly(new Seen("POST", PREFIX + "/v1/completions", true));
    assertThat(emulator.served()).isEqualTo(25);
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    assertThat(metrics.getBoolean(MetricKeys.PASSED)).isTrue();
    assertThat(metrics.getString(MetricKeys.ENGINE)).isEqualTo("llama_cpp");
    assertThat(metrics.getString(MetricKeys.ENGINE_IMAGE)).isEqualTo("endpoint:" + endpoint);
    assertThat(metrics.getString(MetricKeys.ENGINE_VERSION)).isEqualTo(EngineEmulator.BUILD_INFO);
    // svc did not start it, and the model named with -m is not on this host
    assertThat(metrics.containsKey(MetricKeys.ENGINE_ARGS)).isTrue();
    assertThat(metrics.getValue(MetricKeys.ENGINE_ARGS)).isNull();
    assertThat(metrics.getValue(MetricKeys.ENGINE_IMAGE_DIGEST)).isNull();
    assertThat(metrics.getValue(MetricKeys.MODEL_DIGEST)).isNull();
    assertThat(metrics.getString(MetricKeys.MODEL_DIGEST_REASON))
        .isEqualTo("the model path " + temp.resolve("models/tiny.gguf") + " is not on this host");
    assertThat(metrics.getInteger(MetricKeys.REPEATS)).isEqualTo(1);
    JsonObject throughput = metrics.getJsonArray(MetricKeys.RESULTS).getJsonObject(0).getJsonObject(MetricKeys.METRICS);
    assertThat(throughput.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isEqualTo(20L * 16);
    assertThat(throughput.getLong(MetricKeys.ERROR_COUNT)).isZero();
    assertThat(new JsonObject(Files.readString(out.resolve("config.json"))).getString("endpoint")).isEqualTo(endpoint);
    // each request's own connection, TLS handshake included, opened before it was sent
    assertThat(throughput.getJsonObject(MetricKeys.CONNECT_MS).getDouble(MetricKeys.MIN)).isPositive();
    List<JsonObject> lines;
    try (var in = new java.util.zip.GZIPInputStream(Files.newInputStream(out.resolve("requests.jsonl.gz")))) {
      lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(JsonObject::new).toList();
    }
    assertThat(lines).hasSize(20).allSatisfy(line -> {
      assertThat(line.getDouble("t_connect_start_ms")).isLessThan(line.getDouble("t_connected_ms"));
      assertThat(line.getDouble("t_connected_ms")).isLessThanOrEqualTo(line.getDouble("t_send_ms"));
    });
  }

  @Test
  void aPlainHttpEndpointEndingInV1SendsItsRequestsUnderThePrefixWithoutRepeatingV1() throws Exception {
    int port = proxy(null).actualPort();
    Path out = temp.resolve("http");

    Captured run = run("--endpoint", "http://127.0.0.1:" + port + PREFIX + "/v1/", "-e", "llama_cpp", "-s", "quick",
        "-o", out.toString());

    assertThat(run.exit()).as(run.stderr()).isZero();
    // the engine's own /props sits beside the API's /v1, not under it
    assertThat(seen).hasSize(26).first().isEqualTo(new Seen("GET", PREFIX + "/props", false));
    assertThat(seen.subList(1, 26)).containsOnly(new Seen("POST", PREFIX + "/v1/completions", false));
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    assertThat(metrics.getBoolean(MetricKeys.PASSED)).isTrue();
    assertThat(metrics.getString(MetricKeys.ENGINE_VERSION)).isEqualTo(EngineEmulator.BUILD_INFO);
  }

  @Test
  void withoutCaAPrivateCertificateFailsTheRunWithASentenceThatNamesTheEndpointAndSuggestsCa() throws Exception {
    String endpoint = "https://127.0.0.1:" + proxy(Set.of("localhost", "127.0.0.1")).actualPort() + PREFIX;
    Path out = temp.resolve("untrusted");

    Captured run = run("--endpoint", endpoint, "-e", "llama_cpp", "-s", "quick", "-o", out.toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.stderr()).contains("svc run: The TLS certificate of the engine at " + endpoint + " was not accepted"
            + " (unable to find valid certification path to requested target). If a private CA signed it, pass that CA's"
            + " certificate (PEM) with --ca FILE.").doesNotContain("\tat ");
    assertThat(seen).as("requests that got through the handshake").isEmpty();
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    assertThat(metrics.getBoolean(MetricKeys.PASSED)).isFalse();
    assertThat(metrics.getString("error")).contains(endpoint, "--ca");
  }

  @Test
  void aCertificateThatDoesNotNameTheHostIsRefusedEvenFromTheTrustedCa() throws Exception {
    String endpoint = "https://127.0.0.1:" + proxy(Set.of("bench.example.org")).actualPort() + PREFIX;

    Captured run = run("--endpoint", endpoint, "--ca", ca.caFile().toString(), "-e", "llama_cpp", "-s", "quick",
        "-o", temp.resolve("wrong-host").toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.stderr()).contains("svc run: The TLS certificate of the engine at " + endpoint + " was not accepted")
        .contains("(No subject alternative names matching IP address 127.0.0.1 found)")
        .contains("must be signed by the CA given with --ca and name the host 127.0.0.1");
    assertThat(seen).isEmpty();
  }

  @Test
  void whatCannotBeHonouredExitsTwoWithItsSentenceBeforeAnythingRuns() throws Exception {
    Path notPem = Files.writeString(temp.resolve("not-a-ca.pem"), "hello\n");
    String ca = this.ca.caFile().toString();

    assertRefused("svc run speaks http and https, not 'ftp'", "--endpoint", "ftp://127.0.0.1/models");
    assertRefused("--endpoint must be a URL that starts with http:// or https://", "--endpoint", "127.0.0.1:8000");
    assertRefused("--endpoint carries user information", "--endpoint", "https://user:secret@127.0.0.1:8443/");
    assertRefused("has a query", "--endpoint", "http://127.0.0.1:8000/prefix?key=1");
    assertRefused("has a fragment", "--endpoint", "http://127.0.0.1:8000/prefix#top");
    assertRefused("has no host", "--endpoint", "http:///prefix");
    assertRefused("the port must be from 1 to 65535", "--endpoint", "http://127.0.0.1:70000/");
    assertRefused("--endpoint is not a URL: Illegal character in path", "--endpoint", "http://127.0.0.1/a b");
    assertRefused("--ca trusts the CA of an https endpoint, and http://127.0.0.1:8000 is plain http",
        "--endpoint", "http://127.0.0.1:8000", "--ca", ca);
    assertRefused("without --endpoint there is nothing to trust it for", "--ca", ca);
    assertRefused("--ca " + temp.resolve("absent.pem") + " does not exist",
        "--endpoint", "https://127.0.0.1:8443", "--ca", temp.resolve("absent.pem").toString());
    assertRefused("--ca " + temp + " is not a file", "--endpoint", "https://127.0.0.1:8443", "--ca", temp.toString());
    assertRefused("--ca " + notPem + " holds no PEM certificate",
        "--endpoint", "https://127.0.0.1:8443", "--ca", notPem.toString());
  }

  private void assertRefused(String message, String... endpointArgs) {
    Path out = temp.resolve("never");
    String[] args = Arrays.copyOf(endpointArgs, endpointArgs.length + 6);
    System.arraycopy(new String[] {"-e", "llama_cpp", "-s", "quick", "-o", out.toString()}, 0, args,
        endpointArgs.length, 6);
    Captured run = run(args);
    assertThat(run.exit()).as(String.join(" ", endpointArgs)).isEqualTo(2);
    assertThat(run.stderr()).as(String.join(" ", endpointArgs)).startsWith("svc run: ").contains(message)
        .doesNotContain("secret");
    assertThat(out).doesNotExist();
  }

  /**
   * A reverse proxy on 127.0.0.1 that records each request and passes those under {@link #PREFIX}
   * on to the emulator, without the prefix, streaming the answer back: HTTPS with a certificate
   * for {@code names} from the test's CA, or plain HTTP when {@code names} is null.
   */
  private HttpServer proxy(Set<String> names) throws Exception {
    HttpServerOptions options = new HttpServerOptions();
    if (names != null) {
      ServerCertificate certificate = ca.ensureServerCertificate(temp.resolve("server-" + String.join("-", names)),
          names, Duration.ofDays(30));
      options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
          .setCertValue(Buffer.buffer(certificate.certificatePem())).setKeyValue(Buffer.buffer(certificate.privateKeyPem())));
    }
    return await(vertx.createHttpServer(options).requestHandler(this::relay).listen(0, "127.0.0.1"));
  }

  private void relay(HttpServerRequest in) {
    seen.add(new Seen(in.method().name(), in.path(), in.isSSL()));
    HttpServerResponse answer = in.response();
    if (!in.path().startsWith(PREFIX + "/")) {
      answer.setStatusCode(404).end("Not under " + PREFIX);
      return;
    }
    in.body().compose(body -> upstream.request(new RequestOptions().setMethod(in.method()).setHost("127.0.0.1")
            .setPort(emulator.port()).setURI(in.uri().substring(PREFIX.length())))
        .compose(request -> request.putHeader("Content-Type", in.getHeader("Content-Type")).send(body)))
        .onSuccess(response -> pass(response, answer))
        .onFailure(e -> answer.setStatusCode(502).end(e.getMessage()));
  }

  private static void pass(HttpClientResponse response, HttpServerResponse answer) {
    answer.setStatusCode(response.statusCode()).setChunked(true);
    String type = response.getHeader("Content-Type");
    if (type != null) {
      answer.putHeader("Content-Type", type);
    }
    response.pipeTo(answer);
  }

  private record Captured(int exit, String stderr) {
  }

  /** {@code svc run} with a home of the test's own; its exit code and what it wrote to stderr. */
  private Captured run(String... args) {
    String[] all = new String[args.length + 4];
    all[0] = "--home";
    all[1] = temp.resolve("home").toString();
    all[2] = "-m";
    all[3] = temp.resolve("models/tiny.gguf").toString();
    System.arraycopy(args, 0, all, 4, args.length);
    PrintStream original = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      int exit = new CommandLine(new RunCommand()).execute(all);
      return new Captured(exit, bytes.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(original);
    }
  }
}
