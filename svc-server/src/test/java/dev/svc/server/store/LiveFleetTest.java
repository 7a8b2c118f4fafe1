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
    assertThat(fleet.work().isSet("a")).isFalse();
    fleet.work().mark("a");
    assertThat(fleet.work().isSet("a")).isTrue();
    fleet.work().clear("a", fleet.work().version("a"));
    assertThat(fleet.work().isSet("a")).isFalse();

    fleet.work().mark("a");
    long lookupBegan = fleet.work().version("a");
    fleet.work().mark("a"); // committed after the lookup's query ran
    fleet.work().clear("a", lookupBegan);
    assertThat(fleet.work().isSet("a")).as("queued during the lookup").isTrue();

    long later = fleet.work().version("a");
    fleet.work().clear("a", later);
    fleet.work().clear("a", lookupBegan); // a slower, older lookup ends last
    assertThat(fleet.work().isSet("a")).isFalse();
    fleet.work().mark("a");
    assertThat(fleet.work().isSet("a")).isTrue();
    assertThat(fleet.work().isSet("b")).as("flags are per agent").isFalse();
  }

  @Test
  void commandsHaveTheirOwnFlag() {
    fleet.commands().mark("a");
    assertThat(fleet.commands().isSet("a")).isTrue();
    assertThat(fleet.work().isSet("a")).isFalse();
    long lookupBegan = fleet.commands().version("a");
    fleet.commands().mark("a");
    fleet.commands().clear("a", lookupBegan);
    assertThat(fleet.commands().isSet("a")).isTrue();
    fleet.commands().clear("a", fleet.commands().version("a"));
    assertThat(fleet.commands().isSet("a")).isFalse();
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

  /**
   * A live agent's row held again and again (each of its heartbeats, its arrival from another node)
   * while its token is checked on another thread: the token is never taken for a deleted agent's.
   * When an update counted the old row out before the new one in, the check caught it between the
   * two (the token unknown, or counted among all but not among the live ones) about half the time.
   */
  @Test
  void aLiveAgentsTokenIsNeverTakenForARevokedOneWhileItsRowIsUpdated() throws Exception {
    String hash = "a".repeat(64);
    fleet.put(row("a", hash, "idle"));
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    Thread updates = new Thread(() -> {
      for (int i = 0; !stop.get(); i++) {
        fleet.put(row("a", hash, i % 2 == 0 ? "running" : "idle"));
      }
    });
    updates.start();
    try {
      int missed = 0;
      for (int i = 0; i < 2_000_000; i++) {
        if (fleet.tokenState(hash) != TokenState.LIVE) {
          missed++;
        }
      }
      assertThat(missed).as("checks that did not find the live token").isZero();
    } finally {
      stop.set(true);
      updates.join();
    }
    fleet.put(new StoredAgent("a", "a", null, null, null, null, null, null, null, null, null, null, null, null,
        "deleted", null, null, null, null, null, null, null, hash, null, false, null, null, "2026-11-29T10:00:00.000Z"));
    assertThat(fleet.tokenState(hash)).as("once deleted").isEqualTo(TokenState.REVOKED);
  }

  private static StoredAgent row(String id, String tokenHash, String status) {
    return new StoredAgent(id, id, null, null, null, null, null, null, null, null, null, null, null, null, status, null,
        null, null, null, null, null, null, tokenHash, null, false, null, null, null);
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
