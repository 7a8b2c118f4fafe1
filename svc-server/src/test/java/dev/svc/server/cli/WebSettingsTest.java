package dev.svc.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * `svc web` reads its settings through vertx-config: conf/server.yaml (or --config), then the
 * environment, then the flags, each winning over the one before; a setting the file misspells or
 * gives the wrong kind of value is refused with a sentence, before anything starts.
 */
class WebSettingsTest {

  @TempDir
  Path dir;

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  private WebSettings read(Path file, Map<String, String> env, JsonObject flags) {
    return WebSettings.read(vertx, file, false, env, flags).await();
  }

  @Test
  void theEnvironmentWinsOverTheFileAndTheFlagsOverBoth() throws Exception {
    Path file = Files.writeString(dir.resolve("server.yaml"), "port: 9001\nhost: 127.0.0.2\nsan: [a.lab, b.lab]\n"
        + "db_url: jdbc:sqlite:/tmp/from-file.db\ninsecure: true\n");
    Map<String, String> env = Map.of("SVC_PORT", "9002", "SVC_SAN", "c.lab, d.lab", "SVC_INSECURE", "false");

    WebSettings fileOnly = read(file, Map.of(), new JsonObject());
    assertThat(fileOnly.port()).isEqualTo(9001);
    assertThat(fileOnly.host()).isEqualTo("127.0.0.2");
    assertThat(fileOnly.list("san")).containsExactly("a.lab", "b.lab");
    assertThat(fileOnly.flag("insecure")).isTrue();

    WebSettings withEnv = read(file, env, new JsonObject());
    assertThat(withEnv.port()).isEqualTo(9002);
    assertThat(withEnv.host()).isEqualTo("127.0.0.2");
    assertThat(withEnv.list("san")).containsExactly("c.lab", "d.lab");
    assertThat(withEnv.flag("insecure")).isFalse();
    assertThat(withEnv.text("db_url")).isEqualTo("jdbc:sqlite:/tmp/from-file.db");

    WebSettings withFlags = read(file, env, new JsonObject().put("port", 9003).put("insecure", true)
        .put("san", new JsonArray().add("e.lab")));
    assertThat(withFlags.port()).isEqualTo(9003);
    assertThat(withFlags.flag("insecure")).isTrue();
    assertThat(withFlags.list("san")).containsExactly("e.lab");

    WebSettings none = read(null, Map.of(), new JsonObject());
    assertThat(none.port()).isEqualTo(WebSettings.DEFAULT_PORT);
    assertThat(none.host()).isEqualTo(WebSettings.DEFAULT_HOST);
    assertThat(none.path("home")).isNull();
    assertThat(none.flag("debug")).isFalse();
  }

  @Test
  void theBridgePortIsOffUnlessAStoreGivesIt() throws Exception {
    assertThat(read(null, Map.of(), new JsonObject()).bridgePort()).isNull();
    Path file = Files.writeString(dir.resolve("bridge.yaml"), "bridge_port: 7001\n");
    assertThat(read(file, Map.of(), new JsonObject()).bridgePort()).isEqualTo(7001);
    assertThat(read(file, Map.of("SVC_BRIDGE_PORT", "7002"), new JsonObject()).bridgePort()).isEqualTo(7002);
    assertThat(read(file, Map.of("SVC_BRIDGE_PORT", "7002"), new JsonObject().put("bridge_port", 0)).bridgePort())
        .isZero();
    assertThatThrownBy(() -> read(null, Map.of("SVC_BRIDGE_PORT", "bridge"), new JsonObject()))
        .hasMessageContaining("SVC_BRIDGE_PORT must be a port number");
    WebCommand command = new WebCommand();
    new CommandLine(command).parseArgs("--bridge-port", "7003");
    assertThat(command.flags().getInteger("bridge_port")).isEqualTo(7003);
  }

  @Test
  void theShippedFileChangesNothingUntilASettingIsUncommented() {
    Path shipped = Path.of("..", "conf", "server.yaml");
    assertThat(shipped).isRegularFile();
    WebSettings settings = read(shipped, Map.of(), new JsonObject());
    assertThat(settings.port()).isEqualTo(WebSettings.DEFAULT_PORT);
    assertThat(settings.host()).isEqualTo(WebSettings.DEFAULT_HOST);
    assertThat(settings.text("db_url")).isNull();
    assertThat(settings.bridgePort()).isNull();
    // every key the file documents is one the server knows
    List<String> names = WebSettings.KEYS.stream().map(WebSettings.Key::name).toList();
    assertThat(names).allSatisfy(name -> assertThat(readString(shipped)).contains("# " + name + ":"));
  }

  @Test
  void aMisspelledKeyOrAWrongKindOfValueIsRefusedWithASentence() throws Exception {
    Path typo = Files.writeString(dir.resolve("typo.yaml"), "prot: 9000\n");
    assertThatThrownBy(() -> read(typo, Map.of(), new JsonObject()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown setting 'prot'")
        .hasMessageContaining("typo.yaml");
    Path word = Files.writeString(dir.resolve("word.yaml"), "port: eighty\n");
    assertThatThrownBy(() -> read(word, Map.of(), new JsonObject()))
        .hasMessageContaining("setting 'port'").hasMessageContaining("port number");
    Path broken = Files.writeString(dir.resolve("broken.yaml"), "port: [9000\n");
    assertThatThrownBy(() -> read(broken, Map.of(), new JsonObject()))
        .hasMessageContaining("cannot read the settings file").hasMessageContaining("broken.yaml");
    assertThatThrownBy(() -> read(null, Map.of("SVC_INSECURE", "maybe"), new JsonObject()))
        .hasMessageContaining("SVC_INSECURE must be true or false");
    assertThatThrownBy(() -> read(null, Map.of("SVC_PORT", "70000"), new JsonObject()))
        .hasMessageContaining("SVC_PORT must be a port number");
    assertThatThrownBy(() -> WebSettings.read(vertx, dir.resolve("absent.yaml"), true, Map.of(), new JsonObject()).await())
        .hasMessageContaining("does not exist");
    // the default file may be absent: the defaults hold
    assertThat(read(dir.resolve("absent.yaml"), Map.of(), new JsonObject()).port()).isEqualTo(WebSettings.DEFAULT_PORT);
  }

  @Test
  void svcWebRefusesABadSettingsFileBeforeStarting() throws Exception {
    Path typo = Files.writeString(dir.resolve("typo.yaml"), "hots: 127.0.0.1\n");
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new SvcCommand());
    cli.setErr(new PrintWriter(err));
    cli.setOut(new PrintWriter(new StringWriter()));
    int exit = cli.execute("web", "--home", dir.resolve("home").toString(), "--config", typo.toString());
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("svc web: unknown setting 'hots'");
    assertThat(dir.resolve("home")).doesNotExist();
  }

  private static String readString(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
