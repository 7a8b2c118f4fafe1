package dev.svc.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The in-memory flags and heartbeats of {@link LiveFleet}, without a database. */
class LiveFleetTest {

  private final LiveFleet fleet = new LiveFleet();

  @Test
  void aLookupThatFindsNothingClearsTheFlagUnlessWorkWasQueuedSinceItBegan() {
    assertThat(fleet.mayHaveWork("a")).isFalse();
    fleet.workQueued("a");
    assertThat(fleet.mayHaveWork("a")).isTrue();
    fleet.noWork("a", fleet.workVersion("a"));
    assertThat(fleet.mayHaveWork("a")).isFalse();

    fleet.workQueued("a");
    long lookupBegan = fleet.workVersion("a");
    fleet.workQueued("a"); // committed after the lookup's query ran
    fleet.noWork("a", lookupBegan);
    assertThat(fleet.mayHaveWork("a")).as("queued during the lookup").isTrue();

    long later = fleet.workVersion("a");
    fleet.noWork("a", later);
    fleet.noWork("a", lookupBegan); // a slower, older lookup ends last
    assertThat(fleet.mayHaveWork("a")).isFalse();
    fleet.workQueued("a");
    assertThat(fleet.mayHaveWork("a")).isTrue();
    assertThat(fleet.mayHaveWork("b")).as("flags are per agent").isFalse();
  }

  @Test
  void commandsHaveTheirOwnFlag() {
    fleet.commandQueued("a");
    assertThat(fleet.mayHaveCommands("a")).isTrue();
    assertThat(fleet.mayHaveWork("a")).isFalse();
    long lookupBegan = fleet.commandsVersion("a");
    fleet.commandQueued("a");
    fleet.noCommands("a", lookupBegan);
    assertThat(fleet.mayHaveCommands("a")).isTrue();
    fleet.noCommands("a", fleet.commandsVersion("a"));
    assertThat(fleet.mayHaveCommands("a")).isFalse();
  }

  @Test
  void theLatestHeartbeatWinsWhateverOrderTheyAreKeptInAndOnlyUnwrittenOnesAreTaken() {
    Instant first = Instant.parse("2026-11-25T10:00:00Z");
    fleet.unwritten("a", new JsonObject().put("uptime_s", 2.0), first.plusSeconds(2));
    fleet.written("a", new JsonObject().put("uptime_s", 1.0), first.plusSeconds(1));
    assertThat(fleet.beat("a").orElseThrow().metrics().getDouble("uptime_s")).isEqualTo(2.0);
    assertThat(fleet.takeUnwritten()).containsOnlyKeys("a");
    assertThat(fleet.takeUnwritten()).isEmpty();
    fleet.notWritten(java.util.Set.of("a"));
    assertThat(fleet.takeUnwritten().get("a").at()).isEqualTo(first.plusSeconds(2));
  }

  @Test
  void anAgentIsNeverHeardOfBeforeTheServerStarted() {
    Instant longAgo = Instant.parse("2020-01-01T00:00:00Z");
    assertThat(fleet.lastHeard("a", "2020-01-01T00:00:00.000Z")).isAfter(longAgo);
    Instant now = Instant.now().plusSeconds(5);
    fleet.unwritten("a", new JsonObject(), now);
    assertThat(fleet.lastHeard("a", "2020-01-01T00:00:00.000Z")).isEqualTo(now);
  }
}
