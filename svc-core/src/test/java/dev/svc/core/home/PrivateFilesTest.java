package dev.svc.core.home;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateFilesTest {

  @TempDir
  Path dir;

  private static String mode(Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  @Test
  void newFilesAndDirectoriesAreOwnerOnlyWhateverTheUmask() throws Exception {
    Path nested = PrivateFiles.directory(dir.resolve("a/b"));
    assertThat(mode(dir.resolve("a"))).isEqualTo("rwx------");
    assertThat(mode(nested)).isEqualTo("rwx------");
    Path file = PrivateFiles.file(nested.resolve("c/svc.db"));
    assertThat(mode(file)).isEqualTo("rw-------");
    assertThat(mode(file.getParent())).isEqualTo("rwx------");
    PrivateFiles.write(nested.resolve("secret"), "s3cret");
    assertThat(mode(nested.resolve("secret"))).isEqualTo("rw-------");
    assertThat(Files.readString(nested.resolve("secret"))).isEqualTo("s3cret");
  }

  @Test
  void whatIsTooOpenIsTightenedAndExistingParentsAreLeftAlone() throws Exception {
    Path shared = Files.createDirectories(dir.resolve("shared"));
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path db = Files.writeString(shared.resolve("svc.db"), "");
    Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("rw-rw-r--"));
    PrivateFiles.file(db);
    assertThat(mode(db)).isEqualTo("rw-------");
    assertThat(mode(shared)).as("a directory svc did not make private").isEqualTo("rwxrwxrwx");
    assertThat(PrivateFiles.tighten(db)).as("already private").isFalse();
    assertThat(PrivateFiles.tighten(dir.resolve("missing"))).isFalse();
    assertThat(PrivateFiles.tighten(shared)).isTrue();
    assertThat(mode(shared)).isEqualTo("rwx------");
  }

  @Test
  void concurrentStartsAgreeOnOneSecret() throws Exception {
    Path key = dir.resolve("secrets/session.key");
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        int n = i;
        results.add(pool.submit((Callable<String>) () -> PrivateFiles.readOrCreate(key, () -> "secret-" + n)));
      }
      String first = results.get(0).get();
      for (Future<String> result : results) {
        assertThat(result.get()).isEqualTo(first);
      }
      assertThat(Files.readString(key).trim()).isEqualTo(first);
      assertThat(mode(key)).isEqualTo("rw-------");
      try (var left = Files.list(key.getParent())) {
        assertThat(left.map(p -> p.getFileName().toString())).containsExactly("session.key");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theHomeIsSecuredWithItsSecrets() throws Exception {
    Path root = Files.createDirectories(dir.resolve("home"));
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path certs = Files.createDirectories(root.resolve("certs/agents/node-1"));
    Files.setPosixFilePermissions(root.resolve("certs"), PosixFilePermissions.fromString("rwxr-xr-x"));
    Path clientKey = Files.writeString(certs.resolve("client-key.pem"), "key");
    Path clientCert = Files.writeString(certs.resolve("client.pem"), "cert");
    Files.setPosixFilePermissions(clientKey, PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(clientCert, PosixFilePermissions.fromString("rw-r--r--"));
    Path wal = Files.writeString(root.resolve("svc.db-wal"), "");
    Files.setPosixFilePermissions(wal, PosixFilePermissions.fromString("rw-r--r--"));

    SvcHome home = new SvcHome(root);
    home.securePrivateFiles();
    assertThat(mode(root)).isEqualTo("rwx------");
    assertThat(mode(home.secrets())).isEqualTo("rwx------");
    assertThat(mode(root.resolve("certs"))).isEqualTo("rwx------");
    assertThat(mode(certs)).isEqualTo("rwx------");
    assertThat(mode(clientKey)).isEqualTo("rw-------");
    assertThat(mode(wal)).isEqualTo("rw-------");
    assertThat(mode(clientCert)).as("a certificate is public").isEqualTo("rw-r--r--");
  }
}
