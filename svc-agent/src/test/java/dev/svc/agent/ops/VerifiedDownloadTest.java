package dev.svc.agent.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.uplink.ServerConnection;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Downloads from a real HTTP server on 127.0.0.1 that announces right or wrong digests. */
class VerifiedDownloadTest {

  static final byte[] BODY = "the archive's bytes".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path tmp;

  Vertx vertx;
  HttpServer http;
  ServerConnection connection;
  volatile String header;
  volatile String listed;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    header = sha256(BODY);
    listed = sha256(BODY);
    http = vertx.createHttpServer().requestHandler(request -> {
      switch (request.path()) {
        case "/archive" -> request.response().putHeader("X-Content-SHA256", header).end(Buffer.buffer(BODY));
        case "/archive/sha256" -> request.response().putHeader("Content-Type", "application/json")
            .end(new JsonObject().put("filename", "a.tar.gz").put("sha256", listed).encode());
        default -> request.response().setStatusCode(404).end("{\"error\":\"No agent package on this server\"}");
      }
    }).listen(0, "127.0.0.1").await();
    connection = ServerConnection.open(vertx, new AgentConfig("http://127.0.0.1:" + http.actualPort(), "", "t", 8090,
        null, null, null, null, null, null, null, null), false);
  }

  @AfterEach
  void stop() {
    connection.close();
    vertx.close().await();
  }

  @Test
  void keepsBytesThatMatchBothDigests() throws Exception {
    VerifiedDownload.Verified verified =
        VerifiedDownload.fetch(vertx, connection, "/archive", "agent package", tmp.resolve("a.tar.gz"));

    assertThat(verified.sha256()).isEqualTo(sha256(BODY));
    assertThat(verified.filename()).isEqualTo("a.tar.gz");
    assertThat(Files.readAllBytes(verified.file())).isEqualTo(BODY);
  }

  @Test
  void aHeaderThatDisagreesAbortsAndNamesBothDigests() throws Exception {
    header = sha256("other bytes".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> VerifiedDownload.fetch(vertx, connection, "/archive", "agent package", tmp.resolve("a.tar.gz")))
        .isInstanceOf(VerifiedDownload.DownloadException.class)
        .hasMessageContaining("SHA-256 mismatch for the agent package").hasMessageContaining(sha256(BODY))
        .hasMessageContaining(header);
    assertThat(tmp.resolve("a.tar.gz")).doesNotExist();
  }

  @Test
  void aListedDigestThatDisagreesAborts() throws Exception {
    listed = sha256("other bytes".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> VerifiedDownload.fetch(vertx, connection, "/archive", "build context", tmp.resolve("c.tar.gz")))
        .hasMessageContaining("SHA-256 mismatch for the build context").hasMessageContaining(listed);
    assertThat(tmp.resolve("c.tar.gz")).doesNotExist();
  }

  @Test
  void anErrorAnswerSaysWhatTheServerSaid() {
    assertThatThrownBy(() -> VerifiedDownload.fetch(vertx, connection, "/missing", "agent package", tmp.resolve("m")))
        .hasMessage("The server answered 404 for the agent package (/missing): No agent package on this server");
    assertThat(tmp.resolve("m")).doesNotExist();
  }

  @Test
  void aMalformedListedDigestAbortsWithItsSentence() {
    listed = "not-a-digest";

    assertThatThrownBy(() -> VerifiedDownload.fetch(vertx, connection, "/archive", "agent package", tmp.resolve("b")))
        .hasMessage("/archive/sha256 is malformed: Field 'sha256' must be 64 hexadecimal digits");
    assertThat(tmp.resolve("b")).doesNotExist();
  }

  static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
