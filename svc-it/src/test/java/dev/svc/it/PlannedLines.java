package dev.svc.it;

import dev.svc.core.Timestamps;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import dev.svc.server.simulator.SimulatedHost;
import dev.svc.server.simulator.SimulatedTest;
import dev.svc.server.simulator.SimulationPlan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The log lines a simulated run prints for a stored quick test: the server's test-agent simulator
 * and {@code svc fleet simulate} plan a run alike ({@link SimulationPlan}, seeded by the test's id,
 * on the agent's hardware), so what they sent can be recomputed from the database and compared
 * with what it stored, line for line. The only input a database does not hold, the second the run
 * began (it names the container), is read back from the stored lines when they name one.
 */
final class PlannedLines {

  private static final Pattern CONTAINER = Pattern.compile("kitt-(\\d+)");
  private static final String TEST_AND_AGENT = "SELECT q.id, q.model_path, q.engine_name, q.benchmark_name,"
      + " q.suite_name, q.started_at, a.id, a.name, a.gpu_info, a.gpu_count, a.cpu_info, a.cpu_arch, a.ram_gb,"
      + " a.environment_type, a.fingerprint FROM quick_tests q JOIN agents a ON a.id = q.agent_id WHERE q.id = ?";

  private static final EngineCatalog ENGINES = EngineCatalog.defaults();

  private PlannedLines() {
  }

  /** The lines the run of test {@code testId} planned, given the lines {@code stored} for it. */
  static List<String> of(Connection db, String testId, List<String> stored) throws SQLException {
    try (PreparedStatement statement = db.prepareStatement(TEST_AND_AGENT)) {
      statement.setString(1, testId);
      try (ResultSet row = statement.executeQuery()) {
        if (!row.next()) {
          throw new AssertionError("No quick test " + testId + " with its agent");
        }
        EngineSpec engine = ENGINES.find(row.getString(3))
            .orElseThrow(() -> new AssertionError("Test " + testId + " names an unknown engine"));
        SimulatedTest test = new SimulatedTest(row.getString(2), row.getString(3), row.getString(4), row.getString(5));
        SimulatedHost host = SimulatedHost.of(row.getString(7), row.getString(8), row.getString(9),
            (Number) row.getObject(10), row.getString(11), row.getString(12), (Number) row.getObject(13),
            row.getString(14), row.getString(15));
        int seed = Math.max(1, testId.hashCode() & Integer.MAX_VALUE);
        return SimulationPlan.create(test, host, engine, seed, new SplittableRandom(seed), began(row.getString(6), stored))
            .lines();
      }
    }
  }

  private static Instant began(String startedAt, List<String> stored) {
    for (String line : stored) {
      Matcher m = CONTAINER.matcher(line);
      if (m.find()) {
        return Instant.ofEpochSecond(Long.parseLong(m.group(1)));
      }
    }
    return Timestamps.parse(startedAt).orElseGet(Instant::now);
  }
}
