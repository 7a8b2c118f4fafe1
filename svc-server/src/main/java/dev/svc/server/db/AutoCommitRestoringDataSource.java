package dev.svc.server.db;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Works around vertx-jdbc-client 5.0.10, which ends a transaction (commit or rollback) with
 * {@code setAutoCommit(false)} instead of restoring auto-commit: every later statement on that
 * pooled connection would run in a transaction nobody commits, visible to the server but lost on
 * restart. Connections from here return to auto-commit when a transaction ends and ignore the
 * library's {@code setAutoCommit(false)} that follows.
 */
final class AutoCommitRestoringDataSource implements DataSource {

  private final DataSource delegate;

  AutoCommitRestoringDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return wrap(delegate.getConnection(username, password));
  }

  private static Connection wrap(Connection connection) {
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        new Handler(connection));
  }

  /** Restores auto-commit after commit/rollback and swallows the one setAutoCommit(false) that follows. */
  private static final class Handler implements InvocationHandler {
    private final Connection target;
    private boolean justEnded;

    Handler(Connection target) {
      this.target = target;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      String name = method.getName();
      if (name.equals("setAutoCommit") && args.length == 1 && Boolean.FALSE.equals(args[0]) && justEnded) {
        justEnded = false;
        return null;
      }
      Object result;
      try {
        result = method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      if ((name.equals("commit") || name.equals("rollback")) && (args == null || args.length == 0)) {
        target.setAutoCommit(true);
        justEnded = true;
      } else if (!name.equals("getAutoCommit")) {
        justEnded = false;
      }
      return result;
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    return delegate.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return delegate.isWrapperFor(type);
  }
}
