package dev.svc.server.store;

import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/** Builds a WHERE clause from optional equality and range filters, with positional parameters. */
final class Filters {

  private final List<String> clauses = new ArrayList<>();
  private final List<Object> params = new ArrayList<>();

  Filters where(String clause, Object value) {
    if (value != null && !(value instanceof String && ((String) value).isEmpty())) {
      clauses.add(clause);
      params.add(value);
    }
    return this;
  }

  Filters always(String clause) {
    clauses.add(clause);
    return this;
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
}
