package dev.svc.server.store;

import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Maps result rows to records at the store's edge: each component takes the column of its name in
 * snake_case ({@code agentDeletedAt} ← {@code agent_deleted_at}). A column the query did not select
 * leaves its component null (false or 0 for a primitive), so that one record serves the selects of
 * a table that read fewer columns. Components are {@code String}, {@code Integer}, {@code Long},
 * {@code Double}, {@code Number} (the value as the driver gives it), {@code long} (0 for null) or
 * {@code boolean} (a flag stored as INTEGER 0/1); a record with another type is refused when first
 * mapped.
 */
final class Rows {

  private static final ClassValue<Shape> SHAPES = new ClassValue<>() {
    @Override
    protected Shape computeValue(Class<?> type) {
      return new Shape(type);
    }
  };

  private Rows() {
  }

  static <R extends Record> List<R> as(RowSet<Row> rows, Class<R> type) {
    Shape shape = SHAPES.get(type);
    int[] columns = shape.columns(rows.columnsNames());
    List<R> out = new ArrayList<>(rows.size());
    for (Row row : rows) {
      out.add(type.cast(shape.make(row, columns)));
    }
    return out;
  }

  /** The components of one record type, in order, with the converter of each. */
  private static final class Shape {
    private final Constructor<?> constructor;
    private final String[] columnNames;
    private final Class<?>[] types;

    Shape(Class<?> type) {
      RecordComponent[] components = type.getRecordComponents();
      if (components == null) {
        throw new IllegalArgumentException(type + " is not a record");
      }
      columnNames = new String[components.length];
      types = new Class<?>[components.length];
      for (int i = 0; i < components.length; i++) {
        columnNames[i] = snakeCase(components[i].getName());
        types[i] = components[i].getType();
        if (types[i] != String.class && types[i] != Integer.class && types[i] != Long.class
            && types[i] != Double.class && types[i] != Number.class && types[i] != boolean.class
            && types[i] != long.class) {
          throw new IllegalArgumentException(type.getSimpleName() + "." + components[i].getName()
              + " has a type a row cannot give: " + types[i].getSimpleName());
        }
      }
      try {
        constructor = type.getDeclaredConstructor(types);
        constructor.setAccessible(true);
      } catch (NoSuchMethodException e) {
        throw new IllegalArgumentException(type + " has no canonical constructor", e);
      }
    }

    /** For each component, the index of its column in these (-1 when the query did not select it). */
    int[] columns(List<String> names) {
      Map<String, Integer> index = new HashMap<>();
      for (int i = 0; i < names.size(); i++) {
        index.putIfAbsent(names.get(i).toLowerCase(Locale.ROOT), i);
      }
      int[] out = new int[columnNames.length];
      for (int i = 0; i < columnNames.length; i++) {
        out[i] = index.getOrDefault(columnNames[i], -1);
      }
      return out;
    }

    Object make(Row row, int[] columns) {
      Object[] args = new Object[columns.length];
      for (int i = 0; i < columns.length; i++) {
        args[i] = convert(columns[i] < 0 ? null : row.getValue(columns[i]), types[i]);
      }
      try {
        return constructor.newInstance(args);
      } catch (InstantiationException | IllegalAccessException e) {
        throw new IllegalStateException(e);
      } catch (InvocationTargetException e) {
        throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
      }
    }

    private static Object convert(Object value, Class<?> type) {
      if (type == boolean.class) {
        return Flags.isTrue(value);
      }
      if (type == long.class) {
        return value instanceof Number n ? n.longValue() : 0L;
      }
      if (value == null) {
        return null;
      }
      if (type == String.class) {
        return value.toString();
      }
      if (!(value instanceof Number n)) {
        throw new IllegalStateException("a " + type.getSimpleName() + " column holds " + value.getClass().getSimpleName());
      }
      if (type == Number.class) {
        return n;
      }
      if (type == Integer.class) {
        return n.intValue();
      }
      return type == Long.class ? (Object) n.longValue() : (Object) n.doubleValue();
    }
  }

  static String snakeCase(String name) {
    StringBuilder out = new StringBuilder(name.length() + 4);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isUpperCase(c)) {
        out.append('_').append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
