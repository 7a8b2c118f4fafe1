package dev.svc.server.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Another process holding SQLite's write lock on a database: the {@code sqlite3} shell in {@code BEGIN
 * EXCLUSIVE} with an uncommitted insert, as an operator's tool or a backup script would. {@link #kill()}
 * ends it with SIGKILL mid-transaction (its insert must vanish, the file stay sound).
 */
final class SqliteLock implements AutoCloseable {

  private static final String HELD = "lock-held";

  private final Process process;

  private SqliteLock(Process process) {
    this.process = process;
  }

  /** Starts the shell and returns once it holds the lock (it says so on stdout), within {@code timeoutS}. */
  static SqliteLock take(Path db, String uncommittedSql, long timeoutS) throws Exception {
    Process process = new ProcessBuilder("sqlite3", db.toString()).redirectErrorStream(true).start();
    SqliteLock lock = new SqliteLock(process);
    try {
      OutputStream in = process.getOutputStream();
      in.write(("BEGIN EXCLUSIVE;\n" + uncommittedSql + "\nSELECT '" + HELD + "';\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
      CompletableFuture<String> held = CompletableFuture.supplyAsync(() -> {
        StringBuilder seen = new StringBuilder();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
          for (String line = out.readLine(); line != null; line = out.readLine()) {
            seen.append(line).append('\n');
            if (line.equals(HELD)) {
              return seen.toString();
            }
          }
        } catch (IOException e) {
          seen.append(e);
        }
        throw new IllegalStateException("sqlite3 did not take the lock: " + seen);
      });
      held.get(timeoutS, TimeUnit.SECONDS);
      return lock;
    } catch (Exception e) {
      lock.kill();
      throw e;
    }
  }

  /** SIGKILL, mid-transaction, and wait for the process to be gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("sqlite3 (pid " + process.pid() + ") did not die of SIGKILL within 30 s");
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
