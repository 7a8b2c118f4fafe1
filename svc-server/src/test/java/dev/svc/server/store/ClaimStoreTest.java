package dev.svc.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.db.SqlDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claim has one holder at a time, even when many nodes ask for it at once; its holder renews it;
 * another node takes it once it expired or was released. On SQLite here; on PostgreSQL in
 * {@link ClaimStoreOnPostgresTest}.
 */
class ClaimStoreTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @TempDir
  Path dir;
  private Vertx vertx;
  private SqlDatabase db;
  private ClaimStore claims;

  @BeforeEach
  void open() throws Exception {
    vertx = Vertx.vertx();
    db = SqlDatabase.open(vertx, databaseUrl()).await();
    claims = new ClaimStore(db.pool());
  }

  @AfterEach
  void close() {
    db.close().await();
    vertx.close().await();
  }

  String databaseUrl() throws Exception {
    return SqlDatabase.sqliteUrl(dir.resolve("svc.db"));
  }

  @Test
  void oneHolderAtATimeAndItsHolderRenewsIt() {
    assertThat(claims.hold("singletons", "node-a", LONG).await()).isTrue();
    assertThat(claims.hold("singletons", "node-b", LONG).await()).as("held by node-a").isFalse();
    assertThat(claims.hold("singletons", "node-a", LONG).await()).as("renewed by its holder").isTrue();
    assertThat(claims.read("singletons").await()).get().extracting(ClaimStore.Claim::holder).isEqualTo("node-a");
    assertThat(claims.hold("housekeeping", "node-b", LONG).await()).as("another claim is another row").isTrue();
  }

  @Test
  void anExpiredOrReleasedClaimIsTakenByAnother() {
    assertThat(claims.hold("singletons", "node-a", Duration.ofMillis(-1)).await()).isTrue();
    assertThat(claims.hold("singletons", "node-b", LONG).await()).as("node-a's expired").isTrue();
    assertThat(claims.hold("singletons", "node-a", LONG).await()).as("node-b holds it now").isFalse();

    claims.release("singletons", "node-a").await();
    assertThat(claims.read("singletons").await()).as("not node-a's to release").isPresent();
    claims.release("singletons", "node-b").await();
    assertThat(claims.read("singletons").await()).isEmpty();
    assertThat(claims.hold("singletons", "node-a", LONG).await()).isTrue();
  }

  @Test
  void nodesRacingForAFreeOrExpiredClaimLeaveOneHolder() {
    for (int round = 0; round < 10; round++) {
      String name = "race-" + round;
      if (round % 2 == 1) {
        claims.hold(name, "old", Duration.ofMillis(-1)).await();
      }
      List<Future<Boolean>> asked = new ArrayList<>();
      for (int node = 0; node < 8; node++) {
        asked.add(claims.hold(name, "node-" + node, LONG));
      }
      Future.all(asked).await();
      assertThat(asked.stream().filter(Future::result).count()).as("round %d", round).isEqualTo(1);
      String winner = "node-" + asked.indexOf(asked.stream().filter(Future::result).findFirst().orElseThrow());
      assertThat(claims.read(name).await()).get().extracting(ClaimStore.Claim::holder).isEqualTo(winner);
    }
  }
}
