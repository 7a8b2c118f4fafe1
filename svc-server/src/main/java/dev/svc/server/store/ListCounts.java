package dev.svc.server.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The totals of the lists, without counting a table per page. {@code list_counts} (changeset v14)
 * holds, per list ({@code results}: live results; {@code quick_tests}; {@code campaigns}) and per
 * status of a list ({@code quick_tests:queued}), its rows and a change number; the database's
 * triggers keep both, so every writer keeps them true. A list's total, or one status's, is read
 * there. The total of any other filter is counted once per change of its table: the count is kept
 * here with the change number read before counting, and counted again only once that number has
 * moved.
 */
final class ListCounts {

  static final String RESULTS = "results";
  static final String QUICK_TESTS = "quick_tests";
  static final String CAMPAIGNS = "campaigns";

  /** Filtered counts kept; the least recently used goes first. */
  private static final int CACHED = 512;
  private static final String READ = "SELECT name, total, changes FROM list_counts WHERE name = ? OR name = ?";
  private static final String READ_ALL = "SELECT name, total FROM list_counts WHERE name LIKE ?";

  private record Counted(long changes, long total) {
  }

  /** A row of list_counts: a list (or list:status) and its total; changes counts the list's writes. */
  record ListCount(String name, long total, long changes) {
  }

  private final Pool pool;
  /** Several event loops share a store: the cache is guarded by itself. */
  private final Map<String, Counted> counted = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Counted> eldest) {
      return size() > CACHED;
    }
  };

  ListCounts(Pool pool) {
    this.pool = pool;
  }

  /**
   * The total of a list under a filter.
   *
   * @param list the list ({@link #RESULTS}, {@link #QUICK_TESTS}, {@link #CAMPAIGNS})
   * @param status the status filter of a list that has one, or null
   * @param filtered whether any other filter applies; then {@code countSql} counts it
   * @param cacheable whether the count depends on this list's table alone (a filter that reads
   *     another table is counted every time; such filters name one agent, so their counts are small)
   */
  Future<Long> total(String list, String status, boolean filtered, boolean cacheable, String countSql, Tuple params) {
    String statusRow = status == null ? list : list + ":" + status;
    return Sql.rows(pool, READ, Tuple.of(list, statusRow), ListCount.class).compose(rows -> {
      Map<String, ListCount> byName = new HashMap<>();
      rows.forEach(r -> byName.put(r.name(), r));
      if (!filtered) {
        ListCount row = byName.get(statusRow);
        return Future.succeededFuture(row == null ? 0L : row.total());
      }
      ListCount table = byName.get(list);
      if (!cacheable || table == null) {
        return Sql.count(pool, countSql, params);
      }
      long changes = table.changes();
      String key = countSql + '\u0000' + params.deepToString();
      Counted known;
      synchronized (counted) {
        known = counted.get(key);
      }
      if (known != null && known.changes == changes) {
        return Future.succeededFuture(known.total);
      }
      return Sql.count(pool, countSql, params).onSuccess(total -> {
        synchronized (counted) {
          counted.put(key, new Counted(changes, total));
        }
      });
    });
  }

  /** The stored total of each status of a list ({@code queued} → 3), statuses with no rows left out. */
  Future<Map<String, Long>> byStatus(String list) {
    return Sql.rows(pool, READ_ALL, Tuple.of(list + ":%"), ListCount.class).map(rows -> {
      Map<String, Long> out = new HashMap<>();
      for (ListCount row : rows) {
        if (row.total() > 0) {
          out.put(row.name().substring(list.length() + 1), row.total());
        }
      }
      return out;
    });
  }

  /** The totals of these statuses of a list, together. */
  Future<Long> sumOf(String list, List<String> statuses) {
    return byStatus(list).map(all -> statuses.stream().mapToLong(s -> all.getOrDefault(s, 0L)).sum());
  }
}
