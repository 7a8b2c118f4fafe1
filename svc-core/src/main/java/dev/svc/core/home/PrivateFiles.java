package dev.svc.core.home;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files and directories only their owner may read: the database, private keys, the session key.
 * New ones are created owner-only from their first byte (never created readable, then narrowed);
 * existing ones that group or others may access are tightened, with a warning naming them, because
 * whatever they held may have been read already. On a file system without POSIX permissions these
 * are plain file operations.
 */
public final class PrivateFiles {

  private static final Logger LOG = LoggerFactory.getLogger(PrivateFiles.class);

  public static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
  public static final Set<PosixFilePermission> OWNER_DIRECTORY = PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> READABLE_FILE = PosixFilePermissions.fromString("rw-r--r--");

  private static final Set<PosixFilePermission> GROUP_OR_OTHERS = EnumSet.of(
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

  private PrivateFiles() {
  }

  /** Creates {@code dir} and its missing parents owner-only (0700); an existing {@code dir} is tightened. */
  public static Path directory(Path dir) {
    Path target = createMissing(dir);
    tighten(target);
    return target;
  }

  /**
   * Creates whatever is missing of {@code dir} and its parents owner-only (0700), leaving existing
   * directories as they are (a database under /tmp must not make /tmp private).
   */
  public static Path createMissing(Path dir) {
    Path target = dir.toAbsolutePath().normalize();
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = target; p != null && !Files.exists(p); p = p.getParent()) {
      missing.push(p);
    }
    try {
      while (!missing.isEmpty()) {
        Path next = missing.pop();
        try {
          if (posix(next.getParent())) {
            Files.createDirectory(next, PosixFilePermissions.asFileAttribute(OWNER_DIRECTORY));
          } else {
            Files.createDirectory(next);
          }
        } catch (FileAlreadyExistsException raced) {
          // another process made it meanwhile; it is checked below like any existing one
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not create the directory " + target, e);
    }
    return target;
  }

  /**
   * Makes an existing file or directory owner-only when group or others have any access to it,
   * logging a warning that names it. Returns true when it had to be tightened. A missing path is
   * left alone. Refuses (IllegalStateException) when it cannot be tightened, e.g. another user owns it.
   */
  public static boolean tighten(Path path) {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS) || !posix(path)) {
      return false;
    }
    try {
      Set<PosixFilePermission> current = Files.getPosixFilePermissions(path);
      if (current.stream().noneMatch(GROUP_OR_OTHERS::contains)) {
        return false;
      }
      Set<PosixFilePermission> owner = EnumSet.noneOf(PosixFilePermission.class);
      owner.addAll(current);
      owner.removeAll(GROUP_OR_OTHERS);
      Files.setPosixFilePermissions(path, owner);
      LOG.warn("{} was accessible to other local users ({}); it holds secrets, so it is now {} (owner only)."
          + " Anything secret in it may have been read already.", path, PosixFilePermissions.toString(current),
          PosixFilePermissions.toString(owner));
      return true;
    } catch (IOException | SecurityException e) {
      throw new IllegalStateException(path + " is accessible to other local users and could not be made private ("
          + e.getMessage() + "); make it owner-only (chmod go-rwx " + path + ") or fix its owner, then start again.", e);
    }
  }

  /**
   * Logs a warning when group or others may access a secret that svc reads but does not own (a
   * custom --tls-key, an --auth-token-file): svc leaves its permissions to its owner. Returns true
   * when it warned.
   */
  public static boolean warnIfShared(Path file) {
    if (!Files.exists(file) || !posix(file)) {
      return false;
    }
    try {
      Set<PosixFilePermission> current = Files.getPosixFilePermissions(file);
      if (current.stream().noneMatch(GROUP_OR_OTHERS::contains)) {
        return false;
      }
      LOG.warn("{} holds a secret and is accessible to other local users ({}); make it owner-only"
          + " (chmod 600 {}).", file, PosixFilePermissions.toString(current), file);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Creates an empty owner-only file unless it exists; an existing one is tightened. */
  public static Path file(Path file) {
    Path target = file.toAbsolutePath().normalize();
    createMissing(target.getParent());
    try {
      Files.createFile(target, attributes(target.getParent(), OWNER_FILE));
    } catch (FileAlreadyExistsException exists) {
      tighten(target);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not create " + target, e);
    }
    return target;
  }

  /** Writes {@code content} to {@code file}, replacing it; owner-only from the first byte. */
  public static void write(Path file, String content) {
    write(file, content, OWNER_FILE);
  }

  /**
   * Writes {@code content} (a certificate, nothing secret) to {@code file}, replacing it, readable
   * by all once complete; its directory, when made here, is owner-only.
   */
  public static void writeReadable(Path file, String content) {
    write(file, content, READABLE_FILE);
  }

  // through an owner-only temporary sibling, so a crash never leaves a half-written file behind
  private static void write(Path file, String content, Set<PosixFilePermission> permissions) {
    Path target = file.toAbsolutePath().normalize();
    Path dir = createMissing(target.getParent());
    Path tmp = null;
    try {
      tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp", attributes(dir, OWNER_FILE));
      Files.writeString(tmp, content);
      if (posix(dir) && !permissions.equals(OWNER_FILE)) {
        Files.setPosixFilePermissions(tmp, permissions);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      tmp = null;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write " + target, e);
    } finally {
      deleteQuietly(tmp);
    }
  }

  /**
   * The secret stored in {@code file} (trimmed), or, when there is none, {@code create}'s value
   * written there owner-only. A value another process stored first wins over ours, so two
   * processes starting together agree on one secret.
   */
  public static String readOrCreate(Path file, Supplier<String> create) {
    Path target = file.toAbsolutePath().normalize();
    Path dir = createMissing(target.getParent());
    try {
      if (Files.exists(target)) {
        tighten(target);
        return Files.readString(target).trim();
      }
      String value = create.get();
      Path tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp", attributes(dir, OWNER_FILE));
      try {
        Files.writeString(tmp, value + "\n");
        // a hard link never replaces an existing file: whoever links first has stored the secret
        Files.createLink(target, tmp);
        return value;
      } catch (FileAlreadyExistsException lost) {
        return Files.readString(target).trim();
      } catch (UnsupportedOperationException | java.nio.file.FileSystemException noLinks) {
        // a file system without hard links: a plain move, which also refuses to replace
        Files.move(tmp, target);
        return value;
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read or create " + target, e);
    }
  }

  private static FileAttribute<?>[] attributes(Path dir, Set<PosixFilePermission> permissions) {
    return posix(dir) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)}
        : new FileAttribute<?>[0];
  }

  private static boolean posix(Path path) {
    try {
      Path existing = path;
      while (existing != null && !Files.exists(existing)) {
        existing = existing.getParent();
      }
      return existing != null && Files.getFileStore(existing).supportsFileAttributeView(PosixFileAttributeView.class);
    } catch (IOException e) {
      return false;
    }
  }

  private static void deleteQuietly(Path tmp) {
    if (tmp == null) {
      return;
    }
    try {
      Files.deleteIfExists(tmp);
    } catch (IOException ignored) {
      // the write already failed; that error is the one worth reporting
    }
  }
}
