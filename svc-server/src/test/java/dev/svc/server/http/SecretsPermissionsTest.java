package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Other local users read nothing secret in the svc home: the home, the database and its WAL/SHM,
 * the CA and server keys and the session key are owner-only, also in a home an older version left
 * readable; and the key that signs sessions is not in the database, where a copy of svc.db (a
 * backup of results) would carry it.
 */
class SecretsPermissionsTest {

  private static final String TOKEN = "secrets-test-global-token";

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.authToken(TOKEN));

  private static String mode(Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  @Test
  void aFreshHomeHoldsItsSecretsOwnerOnly() throws Exception {
    TestServer server = servers.start();
    // a write, so that the WAL and its shared-memory index exist however SQLite checkpointed
    assertThat(server.post("/api/v1/agents/test", TOKEN, new JsonObject().put("name", "perm-sim")).statusCode())
        .isEqualTo(201);
    Path home = servers.home();
    assertThat(mode(home)).as("the home").isEqualTo("rwx------");
    assertThat(mode(home.resolve("svc.db"))).as("svc.db").isEqualTo("rw-------");
    assertThat(mode(home.resolve("svc.db-wal"))).as("svc.db-wal").isEqualTo("rw-------");
    assertThat(mode(home.resolve("svc.db-shm"))).as("svc.db-shm").isEqualTo("rw-------");
    assertThat(mode(home.resolve("certs"))).as("certs/").isEqualTo("rwx------");
    assertThat(mode(home.resolve("certs/ca-key.pem"))).as("the CA key").isEqualTo("rw-------");
    assertThat(mode(home.resolve("certs/server-key.pem"))).as("the server key").isEqualTo("rw-------");
    assertThat(mode(home.resolve("secrets"))).as("secrets/").isEqualTo("rwx------");
    assertThat(mode(home.resolve("secrets/session.key"))).as("the session key").isEqualTo("rw-------");
  }

  @Test
  void theSessionKeyIsAFileOfItsOwnAndSessionsSurviveARestart() throws Exception {
    TestServer server = servers.start();
    HttpResponse<Buffer> login = server.post("/api/v1/session", new JsonObject().put("token", TOKEN));
    assertThat(login.statusCode()).isEqualTo(200);
    String cookie = cookieOf(login);
    server.close();

    assertThat(settingsValue(servers.home(), "_session_key")).as("the session key in the database").isEmpty();
    String key = Files.readString(servers.home().resolve("secrets/session.key")).trim();
    assertThat(key).matches("[0-9a-f]{64}");

    TestServer again = TestServer.start(servers.home(), new TestServer.Options().authToken(TOKEN)
        .resultsDir(servers.results()));
    try {
      assertThat(Files.readString(servers.home().resolve("secrets/session.key")).trim()).isEqualTo(key);
      HttpResponse<Buffer> agents = TestServer.send(again.client(), HttpMethod.GET, "/api/v1/agents", null, null,
          MultiMap.caseInsensitiveMultiMap().add("Cookie", cookie));
      assertThat(agents.statusCode()).as("the session of before the restart").isEqualTo(200);
    } finally {
      again.close();
    }
  }

  @Test
  void aHomeLeftReadableIsTightenedAndTheKeyItsDatabaseHeldSignsNothing() throws Exception {
    TestServer first = servers.start();
    first.close();
    Path home = servers.home();
    // what an older version left: everything readable, the session key in the settings table
    String oldKey = "ab".repeat(32);
    try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + home.resolve("svc.db"));
        PreparedStatement delete = db.prepareStatement("DELETE FROM settings WHERE key = '_session_key'");
        PreparedStatement insert = db.prepareStatement(
            "INSERT INTO settings (key, value, updated_at) VALUES ('_session_key', ?, '2026-01-01T00:00:00.000Z')")) {
      delete.executeUpdate();
      insert.setString(1, oldKey);
      insert.executeUpdate();
    }
    Files.deleteIfExists(home.resolve("secrets/session.key"));
    Files.createDirectories(home.resolve("secrets"));
    for (String name : new String[] {"svc.db", "certs/ca-key.pem", "certs/server-key.pem"}) {
      Files.setPosixFilePermissions(home.resolve(name), PosixFilePermissions.fromString("rw-r--r--"));
    }
    for (String name : new String[] {".", "certs", "secrets"}) {
      Files.setPosixFilePermissions(home.resolve(name), PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    TestServer server = TestServer.start(home, new TestServer.Options().authToken(TOKEN).resultsDir(servers.results()));
    try {
      for (String name : new String[] {"svc.db", "certs/ca-key.pem", "certs/server-key.pem", "secrets/session.key"}) {
        assertThat(mode(home.resolve(name))).as(name).isEqualTo("rw-------");
      }
      for (String name : new String[] {".", "certs", "secrets"}) {
        assertThat(mode(home.resolve(name))).as(name).isEqualTo("rwx------");
      }
      assertThat(settingsValue(home, "_session_key")).as("the old key's row").isEmpty();
      // whoever read the old key from the database forges an authenticated session with it: refused
      String forged = forgedSession(oldKey);
      HttpResponse<Buffer> agents = TestServer.send(server.client(), HttpMethod.GET, "/api/v1/agents", null, null,
          MultiMap.caseInsensitiveMultiMap().add("Cookie", "svc_session=" + forged));
      assertThat(agents.statusCode()).isEqualTo(401);
    } finally {
      server.close();
    }
  }

  private static String cookieOf(HttpResponse<Buffer> response) {
    String setCookie = response.getHeader("Set-Cookie");
    return setCookie.substring(0, setCookie.indexOf(';'));
  }

  /** An authenticated session cookie as {@link Sessions} writes one, signed with {@code hexKey}. */
  private static String forgedSession(String hexKey) throws Exception {
    String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(
        ((System.currentTimeMillis() + 3_600_000) + ":1:" + "0".repeat(32)).getBytes(StandardCharsets.UTF_8));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(HexFormat.of().parseHex(hexKey), "HmacSHA256"));
    return payload + "." + HexFormat.of().formatHex(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
  }

  private static Optional<String> settingsValue(Path home, String key) throws Exception {
    try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + home.resolve("svc.db"));
        PreparedStatement select = db.prepareStatement("SELECT value FROM settings WHERE key = ?")) {
      select.setString(1, key);
      try (ResultSet rows = select.executeQuery()) {
        return rows.next() ? Optional.of(rows.getString(1)) : Optional.empty();
      }
    }
  }
}
