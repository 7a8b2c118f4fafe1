package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Credentials are checked before a body is read: a POST that announces a 1 MiB body but may not
 * call its route is answered 401 or 403 while most of that body was never sent, so an
 * unauthenticated client cannot make the server buffer a megabyte per request.
 */
class AuthBeforeBodyTest {

  private static final String TOKEN = "auth-before-body-global-token";
  private static final int ANNOUNCED = (int) ApiRouter.BODY_LIMIT;
  private static final int SENT = 1024;

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.insecure().authToken(TOKEN));

  /** Sends the head and the first KiB of a 1 MiB POST (or the method the route names), then reads the status line without sending the rest. */
  private static String statusOfAnUnfinishedPost(TestServer server, String route, String bearer) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      // an answer that waited for the whole body would never come: the rest is never sent
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      String request = route.contains(" ") ? route : "POST " + route;
      out.write((request + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
          + ANNOUNCED + "\r\n" + (bearer == null ? "" : "Authorization: Bearer " + bearer + "\r\n") + "\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      byte[] start = new byte[SENT];
      start[0] = '{';
      java.util.Arrays.fill(start, 1, SENT, (byte) ' ');
      out.write(start);
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder line = new StringBuilder();
      for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
        line.append((char) c);
      }
      return line.toString().trim();
    }
  }

  @Test
  void anUnauthenticatedPostIsRefusedBeforeItsBodyIsRead() throws IOException {
    TestServer server = servers.start();
    for (String path : List.of("/api/v1/quicktest", "/api/v1/campaigns", "/api/v1/agents", "PUT /api/v1/settings",
        "/api/v1/results/compare")) {
      assertThat(statusOfAnUnfinishedPost(server, path, null)).as(path).isEqualTo("HTTP/1.1 401 Unauthorized");
      assertThat(statusOfAnUnfinishedPost(server, path, "wrong-token")).as(path).isEqualTo("HTTP/1.1 403 Forbidden");
    }
    // the agent routes too: a token no agent holds, or none, is refused before the body
    for (String path : List.of("/api/v1/agents/register", "/api/v1/agents/some-agent/heartbeat",
        "/api/v1/agents/some-agent/results", "/api/v1/quicktest/some-test/logs")) {
      assertThat(statusOfAnUnfinishedPost(server, path, null)).as(path).isEqualTo("HTTP/1.1 401 Unauthorized");
      assertThat(statusOfAnUnfinishedPost(server, path, "wrong-token")).as(path).isEqualTo("HTTP/1.1 403 Forbidden");
    }
    // and the server still answers whole requests with the right token
    assertThat(server.get("/api/v1/agents", TOKEN).statusCode()).isEqualTo(200);
  }
}
