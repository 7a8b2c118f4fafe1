package dev.svc.agent.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code agent.pid}: the running daemon's process id. A PID file only counts when its process is
 * alive and is a java process running svc-agent; otherwise it is stale (the agent crashed, or the
 * id was reused by another program) and is replaced or removed, never trusted.
 */
public final class PidFile {

  private final Path file;

  public PidFile(Path file) {
    this.file = file.toAbsolutePath().normalize();
  }

  public Path file() {
    return file;
  }

  /** Thrown by {@link #acquire} when another live agent holds the file. */
  public static final class AlreadyRunning extends RuntimeException {
    private final long pid;

    AlreadyRunning(Path file, long pid) {
      super("svc-agent is already running (pid " + pid + ", " + file + ")");
      this.pid = pid;
    }

    public long pid() {
      return pid;
    }
  }

  /** The id the file names; empty when there is no file or it does not hold a number. */
  public OptionalLong read() {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8).trim();
      return text.matches("[0-9]{1,19}") ? OptionalLong.of(Long.parseLong(text)) : OptionalLong.empty();
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read " + file, e);
    }
  }

  /** The live svc-agent process the file names, if any. */
  public Optional<ProcessHandle> liveAgent() {
    OptionalLong pid = read();
    if (pid.isEmpty()) {
      return Optional.empty();
    }
    return ProcessHandle.of(pid.getAsLong()).filter(ProcessHandle::isAlive).filter(PidFile::isAgentProcess);
  }

  /**
   * Whether {@code process} is a java process running svc-agent: its command is a java launcher and
   * its command line names the agent (its jar, its main class or its classes directory).
   */
  public static boolean isAgentProcess(ProcessHandle process) {
    if (process.pid() == ProcessHandle.current().pid()) {
      return true;
    }
    String commandLine = commandLine(process);
    if (commandLine.isEmpty()) {
      return false;
    }
    String command = commandLine.split("\u0000| ", 2)[0];
    String executable = command.substring(command.lastIndexOf('/') + 1);
    return executable.startsWith("java") && (commandLine.contains("svc-agent") || commandLine.contains("dev.svc.agent."));
  }

  /** The command line; /proc first, since ProcessHandle.Info loses arguments on some systems. */
  static String commandLine(ProcessHandle process) {
    Path proc = Path.of("/proc", Long.toString(process.pid()), "cmdline");
    try {
      if (Files.isReadable(proc)) {
        String raw = new String(Files.readAllBytes(proc), StandardCharsets.UTF_8);
        if (!raw.isEmpty()) {
          return raw;
        }
      }
    } catch (IOException e) {
      // the process went away meanwhile, or /proc hides it: fall back to what the JDK can see
    }
    return process.info().commandLine().orElse("");
  }

  /**
   * Writes this process's id, atomically: refused with {@link AlreadyRunning} when the file names
   * another live agent; a stale file is replaced.
   */
  public void acquire() {
    long self = ProcessHandle.current().pid();
    Path tmp = null;
    try {
      Files.createDirectories(file.getParent());
      tmp = Files.createTempFile(file.getParent(), "." + file.getFileName(), ".tmp");
      Files.writeString(tmp, self + "\n", StandardCharsets.UTF_8);
      try {
        // a hard link never replaces a file: of two agents starting together, one wins
        Files.createLink(file, tmp);
        return;
      } catch (FileAlreadyExistsException e) {
        Optional<ProcessHandle> holder = liveAgent();
        if (holder.isPresent() && holder.get().pid() != self) {
          throw new AlreadyRunning(file, holder.get().pid());
        }
      } catch (UnsupportedOperationException e) {
        // a file system without hard links: the plain atomic replace below
      }
      move(tmp, file);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write " + file, e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException e) {
          // a leftover hidden temporary file is harmless
        }
      }
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Removes the file when it names {@code pid} (another agent may have replaced it meanwhile). */
  public boolean releaseIfOwnedBy(long pid) {
    OptionalLong named = read();
    if (named.isPresent() && named.getAsLong() == pid) {
      try {
        return Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException("Could not remove " + file, e);
      }
    }
    return false;
  }

  /** Removes the file whatever it names; for a stale file. */
  public boolean remove() {
    try {
      return Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not remove " + file, e);
    }
  }
}
