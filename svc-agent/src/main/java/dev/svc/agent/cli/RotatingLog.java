package dev.svc.agent.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The daemon's log file, {@code agent.log}, rotated by size: before a write would take it past the
 * bound it becomes {@code agent.log.1} (the older backups move up one, the last one is dropped) and
 * a new file is started. A write larger than the bound lands whole in a fresh file. Safe for the
 * several threads that share System.out and System.err.
 */
public final class RotatingLog extends OutputStream {

  /** The mission's bound: 5 MB per file, 3 backups. */
  public static final long MAX_BYTES = 5L * 1024 * 1024;
  public static final int BACKUPS = 3;

  private final Path file;
  private final long maxBytes;
  private final int backups;
  private OutputStream out;
  private long size;

  public RotatingLog(Path file) throws IOException {
    this(file, MAX_BYTES, BACKUPS);
  }

  public RotatingLog(Path file, long maxBytes, int backups) throws IOException {
    if (maxBytes < 1 || backups < 0) {
      throw new IllegalArgumentException("maxBytes must be positive and backups not negative");
    }
    this.file = file.toAbsolutePath().normalize();
    this.maxBytes = maxBytes;
    this.backups = backups;
    Files.createDirectories(this.file.getParent());
    open();
  }

  public Path file() {
    return file;
  }

  /** {@code agent.log.n}, n from 1 (the newest backup). */
  public static Path backup(Path file, int n) {
    return file.resolveSibling(file.getFileName() + "." + n);
  }

  private void open() throws IOException {
    out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    size = Files.size(file);
  }

  @Override
  public synchronized void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public synchronized void write(byte[] bytes, int offset, int length) throws IOException {
    if (length <= 0) {
      return;
    }
    if (size > 0 && size + length > maxBytes) {
      rotate();
    }
    out.write(bytes, offset, length);
    size += length;
  }

  private void rotate() throws IOException {
    out.close();
    if (backups == 0) {
      Files.deleteIfExists(file);
    } else {
      Files.deleteIfExists(backup(file, backups));
      for (int n = backups - 1; n >= 1; n--) {
        if (Files.exists(backup(file, n))) {
          Files.move(backup(file, n), backup(file, n + 1), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Files.move(file, backup(file, 1), StandardCopyOption.REPLACE_EXISTING);
    }
    open();
  }

  @Override
  public synchronized void flush() throws IOException {
    out.flush();
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }

  /** Writes to two streams: the log and the console of a foreground agent in a terminal. */
  public static OutputStream tee(OutputStream first, OutputStream second) {
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        first.write(b);
        second.write(b);
      }

      @Override
      public void write(byte[] bytes, int offset, int length) throws IOException {
        first.write(bytes, offset, length);
        second.write(bytes, offset, length);
      }

      @Override
      public void flush() throws IOException {
        first.flush();
        second.flush();
      }
    };
  }
}
