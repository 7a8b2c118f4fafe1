package dev.svc.agent.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real mounter's decisions, with a stand-in for the mount tool (no NFS server here): a
 * script that records its arguments and prints what mount prints.
 */
class SystemShareMounterTest {

  @TempDir
  Path temp;

  private Path mountInfo;
  private Path fstab;
  private Path calls;
  private Path tool;
  private final List<String> log = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    mountInfo = Files.writeString(temp.resolve("mountinfo"),
        "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
            + "40 22 0:44 / /mnt/with\\040space rw,relatime shared:20 - nfs4 nas:/m rw,vers=4.2\n");
    fstab = Files.writeString(temp.resolve("fstab"), "# comment\nUUID=abc / ext4 defaults 0 1\nnas:/models /mnt/fstab nfs ro 0 0\n");
    calls = temp.resolve("calls");
    tool = temp.resolve("mount");
    Files.writeString(tool, "#!/bin/sh\necho \"$@\" >> " + calls + "\n"
        + "case \"$*\" in *broken*) echo 'mount.nfs: access denied by server while mounting nas:/broken' >&2; exit 32;; esac\n");
    Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwx------"));
  }

  private SystemShareMounter mounter() {
    return new SystemShareMounter(tool.toString(), mountInfo, fstab);
  }

  @Test
  void aMountedShareIsLeftAlone() throws Exception {
    mounter().ensureMounted("nas:/m", Path.of("/mnt/with space"), log::add);
    assertThat(calls).doesNotExist();
    assertThat(log).containsExactly("Model share: /mnt/with space is mounted");
  }

  @Test
  void anFstabEntryIsMountedByItsMountPoint() throws Exception {
    Path point = temp.resolve("fstab-point");
    Files.writeString(fstab, point + " is not a device\nnas:/models " + point + " nfs ro 0 0\n");
    mounter().ensureMounted("", point, log::add);
    assertThat(Files.readString(calls)).isEqualTo(point + "\n");
  }

  @Test
  void otherwiseAnExplicitNfsMount() throws Exception {
    Path point = temp.resolve("nfs-point");
    mounter().ensureMounted("nas:/models", point, log::add);
    assertThat(Files.readString(calls)).isEqualTo("-t nfs nas:/models " + point + "\n");
    assertThat(point).isDirectory();
  }

  @Test
  void aFailingMountIsOneClearError() {
    Path point = temp.resolve("p");
    assertThatThrownBy(() -> mounter().ensureMounted("nas:/broken", point, log::add))
        .isInstanceOf(ModelLookupException.class)
        .hasMessage(tool + " -t nfs nas:/broken " + point + " failed with exit 32: "
            + "mount.nfs: access denied by server while mounting nas:/broken");
  }

  @Test
  void noSourceAndNoFstabEntryIsRefused() {
    assertThatThrownBy(() -> mounter().ensureMounted("", temp.resolve("q"), log::add))
        .hasMessageContaining("is not mounted, has no /etc/fstab entry and model_share_source is empty");
  }
}
