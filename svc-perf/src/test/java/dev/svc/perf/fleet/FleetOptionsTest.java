package dev.svc.perf.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What {@code svc fleet simulate} accepts, and the messages for what it refuses. */
class FleetOptionsTest {

  private static FleetOptions options(String server, Path ca, int shared) {
    return new FleetOptions(URI.create(server), 10, 30, 0, Duration.ofMinutes(1), null, ca, null, "fleet", shared,
        false, 4);
  }

  @Test
  void durationsReadAsAPersonWritesThem() {
    assertThat(FleetOptions.parseDuration("90")).isEqualTo(Duration.ofSeconds(90));
    assertThat(FleetOptions.parseDuration("90s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(FleetOptions.parseDuration("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(FleetOptions.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(FleetOptions.parseDuration("1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThatThrownBy(() -> FleetOptions.parseDuration("5 minutes")).hasMessageContaining("--duration must be like");
    assertThatThrownBy(() -> FleetOptions.parseDuration("")).hasMessageContaining("--duration must be like");
  }

  @Test
  void theServerIsSchemeHostAndPort() {
    assertThat(FleetOptions.serverUri("https://svc.lab:8080/")).isEqualTo(URI.create("https://svc.lab:8080"));
    assertThatThrownBy(() -> FleetOptions.serverUri("svc.lab:8080")).hasMessageContaining("--server must be a URL");
    assertThatThrownBy(() -> FleetOptions.serverUri("https://svc.lab:8080/api")).hasMessageContaining("--server");
  }

  @Test
  void agentsAreNumberedUnderThePrefix() {
    FleetOptions options = options("http://127.0.0.1:8080", null, 0);
    assertThat(options.agentName(0)).isEqualTo("fleet-00001");
    assertThat(options.agentName(49_999)).isEqualTo("fleet-50000");
    assertThat(options.ramp()).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.port()).isEqualTo(8080);
  }

  @Test
  void httpsNeedsTheCaAndAConnectionPerAgent() {
    assertThatThrownBy(() -> options("https://127.0.0.1:8443", null, 0)).hasMessageContaining("--ca is required");
    assertThatThrownBy(() -> options("https://127.0.0.1:8443", Path.of("ca.pem"), 8))
        .hasMessageContaining("--shared-connections works on plain HTTP only");
    assertThat(options("http://127.0.0.1:8080", null, 8).sharedConnections()).isEqualTo(8);
  }
}
