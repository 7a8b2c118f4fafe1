package dev.svc.agent.uplink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.protocol.BadMessage;
import io.netty.handler.codec.DecoderException;
import io.vertx.core.Future;
import io.vertx.core.VertxException;
import java.net.ConnectException;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** Which node is current after which failure. */
class ServersTest {

  static final URI A = URI.create("https://svc-1.lab:8080");
  static final URI B = URI.create("https://svc-2.lab:8080");
  static final URI C = URI.create("https://svc-3.lab:8080");

  @Test
  void aConnectionFailureOnTheCurrentNodeMovesOnRoundRobin() {
    Servers servers = new Servers(List.of(A, B, C));
    assertThat(servers.current()).isEqualTo(A);
    assertThat(servers.failed(A, new ConnectException("Connection refused"))).isEqualTo(B);
    assertThat(servers.failed(B, new TimeoutException("The timeout period of 15000ms has been exceeded"))).isEqualTo(C);
    assertThat(servers.failed(C, new DecoderException(new SSLHandshakeException("PKIX path building failed"))))
        .isEqualTo(A);
  }

  @Test
  void aSecondFailureOnANodeAlreadyLeftSkipsNoNode() {
    Servers servers = new Servers(List.of(A, B, C));
    servers.failed(A, new ConnectException("Connection refused"));
    // the other verticle's request to A failed too, after the first had moved on
    assertThat(servers.failed(A, new VertxException("Connection was closed", new java.io.IOException("reset"))))
        .isEqualTo(B);
  }

  @Test
  void failuresAboveTheConnectionLeaveTheCurrentNode() {
    Servers servers = new Servers(List.of(A, B));
    assertThat(servers.failed(A, Future.failedFuture("server answered 503 Unavailable").cause())).isEqualTo(A);
    assertThat(servers.failed(A, new BadMessage("Field 'agent_id' is required"))).isEqualTo(A);
    assertThat(servers.failed(A, new io.vertx.core.json.DecodeException("Failed to decode"))).isEqualTo(A);
  }

  @Test
  void aSingleServerIsAlwaysCurrent() {
    Servers servers = new Servers(List.of(A));
    assertThat(servers.failed(A, new ConnectException("Connection refused"))).isEqualTo(A);
  }

  @Test
  void theReasonIsTheInnermostMessageAndSaysWhenTlsFailed() {
    assertThat(Servers.reason(new VertxException("outer", new ConnectException("Connection refused"))))
        .isEqualTo("Connection refused");
    assertThat(Servers.reason(new VertxException("Failed to create SSL connection",
        new SSLHandshakeException("Signature does not match."))))
        .isEqualTo("TLS handshake failed: Signature does not match.");
  }
}
