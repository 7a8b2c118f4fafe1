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

  private Connection wrap(Connection connection) {
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        new Handler(delegate, connection));
  }

  /**
   * Restores auto-commit after commit/rollback and swallows the one setAutoCommit(false) that follows.
   * Also replaces a connection the database closed (PostgreSQL restarted, a network cut): the pool
   * keeps its connections for ever and never asks whether they still work, so without this every
   * request would fail on the dead one after the database came back, until a restart. The swap
   * happens only between transactions (a transaction cut in half fails and is rolled back as a whole).
   */
  private static final class Handler implements InvocationHandler {
    private final DataSource source;
    private Connection target;
    private boolean justEnded;
    private boolean inTransaction;

    Handler(DataSource source, Connection target) {
      this.source = source;
      this.target = target;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      String name = method.getName();
      if (name.equals("setAutoCommit") && args.length == 1 && Boolean.FALSE.equals(args[0]) && justEnded) {
        justEnded = false;
        return null;
      }
      if (!inTransaction && !name.equals("close") && !name.equals("isClosed") && target.isClosed()) {
        reopen();
      }
      boolean ends = (name.equals("commit") || name.equals("rollback")) && (args == null || args.length == 0);
      Object result;
      try {
        result = method.invoke(target, args);
      } catch (InvocationTargetException e) {
        if (ends) {
          ended(false); // a failed commit or rollback still ends the transaction, on this side too
        }
        throw e.getCause();
      }
      if (ends) {
        ended(true);
      } else if (name.equals("setAutoCommit") && args.length == 1) {
        inTransaction = Boolean.FALSE.equals(args[0]);
        justEnded = false;
      } else if (!name.equals("getAutoCommit")) {
        justEnded = false;
      }
      return result;
    }

    private void ended(boolean cleanly) throws SQLException {
      inTransaction = false;
      justEnded = true;
      if (cleanly) {
        target.setAutoCommit(true);
      } else if (!target.isClosed()) {
        try {
          target.setAutoCommit(true);
        } catch (SQLException e) {
          // the commit's own failure is the one the caller gets
        }
      }
    }

    /** A new connection in place of the closed one; when the database is still away, its error. */
    private void reopen() throws SQLException {
      Connection fresh = source.getConnection();
      try {
        target.close();
      } catch (SQLException e) {
        // closed already: nothing to release
      }
      target = fresh;
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
