package dev.svc.server.store;

import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Builds a WHERE clause from optional equality and range filters, with positional parameters, and
 * the SQL of one page of a list sorted newest first.
 */
final class Filters {

  private final List<String> clauses = new ArrayList<>();
  private final List<Object> params = new ArrayList<>();
  /** Filters other than the ones every query of the list has ({@link #always}). */
  private int optional;

  Filters where(String clause, Object value) {
    if (value != null && !(value instanceof String && ((String) value).isEmpty())) {
      clauses.add(clause);
      params.add(value);
      optional++;
    }
    return this;
  }

  Filters always(String clause) {
    clauses.add(clause);
    return this;
  }

  /** How many of the optional filters apply. */
  int optionalCount() {
    return optional;
  }

  String sql() {
    return clauses.isEmpty() ? "" : " WHERE " + String.join(" AND ", clauses);
  }

  Tuple params(Object... extra) {
    Tuple tuple = Tuple.tuple();
    params.forEach(tuple::addValue);
    for (Object o : extra) {
      tuple.addValue(o);
    }
    return tuple;
  }

  /**
   * One page of a list sorted newest first by {@code key}, then {@code id} (never NULL, changeset
   * v14). A subquery finds the page's ids in the list's index alone, seeking to the cursor when there
   * is one (keyset: however deep, no row is skipped one by one) and else walking past the offset
   * (index entries only, never the rows themselves); then just those rows are read. It asks for one
   * row more than the page, so that {@link #page} knows whether more follow. Parameters:
   * {@link #pageParams}.
   *
   * @param rows the select of the whole rows, up to its FROM and joins (its table's columns are
   *     {@code key} and {@code id} too)
   * @param from the FROM (and joins) of the subquery
   */
  String pageSql(String rows, String from, String key, String id, Cursor after) {
    String where = sql();
    if (after != null) {
      where += (where.isEmpty() ? " WHERE " : " AND ") + "(" + key + ", " + id + ") < (?, ?)";
    }
    String order = " ORDER BY " + key + " DESC, " + id + " DESC";
    return rows + " WHERE " + id + " IN (SELECT " + id + " " + from + where + order + " LIMIT ? OFFSET ?)" + order;
  }

  Tuple pageParams(Cursor after, int limit, int offset) {
    Tuple t = params();
    if (after != null) {
      t.addValue(after.key()).addValue(after.id());
    }
    return t.addValue(limit + 1).addValue(after != null ? 0 : offset);
  }

  /** The page of rows read with {@link #pageSql}: at most {@code limit}, and the cursor after them when more follow. */
  static <T> Page<T> page(List<T> rows, int limit, long total, Function<T, Cursor> cursor) {
    if (rows.size() <= limit) {
      return new Page<>(rows, total, null);
    }
    List<T> items = rows.subList(0, limit);
    return new Page<>(List.copyOf(items), total, cursor.apply(items.get(limit - 1)));
  }
}
