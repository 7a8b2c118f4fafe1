package dev.svc.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The API token need not be on the command line, where every local user sees it in the process
 * list: `svc web --auth-token-file <path>` reads it from a file and SVC_AUTH_TOKEN from the
 * environment; a file that cannot serve is a usage error with a sentence, before anything starts.
 */
class AuthTokenFileTest {

  @TempDir
  Path dir;

  private record Run(int exit, String err) {
  }

  private Run web(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new SvcCommand());
    cli.setErr(new PrintWriter(err));
    cli.setOut(new PrintWriter(new StringWriter()));
    String[] all = new String[args.length + 3];
    all[0] = "web";
    all[1] = "--home";
    all[2] = dir.resolve("home").toString();
    System.arraycopy(args, 0, all, 3, args.length);
    return new Run(cli.execute(all), err.toString());
  }

  @Test
  void theTokenComesFromTheFileThenTheEnvironment() throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "  file-token-123\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertThat(WebCommand.resolveToken(null, file, Map.of("SVC_AUTH_TOKEN", "env-token"))).isEqualTo("file-token-123");
    assertThat(WebCommand.resolveToken(null, null, Map.of("SVC_AUTH_TOKEN", "env-token"))).isEqualTo("env-token");
    assertThat(WebCommand.resolveToken("flag-token", null, Map.of("SVC_AUTH_TOKEN", "env-token"))).isEqualTo("flag-token");
    assertThat(WebCommand.resolveToken(null, null, Map.of())).isNull();
    assertThat(WebCommand.resolveToken(null, null, Map.of("SVC_AUTH_TOKEN", " "))).isNull();
    assertThatThrownBy(() -> WebCommand.resolveToken("flag-token", file, Map.of()))
        .hasMessageContaining("not both");
  }

  @Test
  void aMissingEmptyOrUnreadableFileIsAUsageErrorWithASentence() throws Exception {
    Run missing = web("--auth-token-file", dir.resolve("nope").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("cannot read the token file").contains("nope").contains("does not exist");

    Path empty = Files.writeString(dir.resolve("empty"), "\n  \n");
    Run blank = web("--auth-token-file", empty.toString());
    assertThat(blank.exit()).isEqualTo(2);
    assertThat(blank.err()).contains("is empty");

    Path twoLines = Files.writeString(dir.resolve("two"), "one\ntwo\n");
    Run lines = web("--auth-token-file", twoLines.toString());
    assertThat(lines.exit()).isEqualTo(2);
    assertThat(lines.err()).contains("more than one line");

    Path directory = Files.createDirectories(dir.resolve("a-directory"));
    Run notAFile = web("--auth-token-file", directory.toString());
    assertThat(notAFile.exit()).isEqualTo(2);
    assertThat(notAFile.err()).contains("cannot read the token file");

    Run both = web("--auth-token", "x", "--auth-token-file", empty.toString());
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("not both");
    assertThat(Files.exists(dir.resolve("home/svc.db"))).as("nothing started").isFalse();
  }

  @Test
  void helpSaysWhyTheTokenBelongsInAFileOrTheEnvironment() {
    StringWriter out = new StringWriter();
    CommandLine cli = new CommandLine(new SvcCommand());
    cli.setOut(new PrintWriter(out));
    assertThat(cli.execute("web", "--help")).isZero();
    String help = out.toString().replaceAll("\\s+", " ");
    assertThat(help).contains("--auth-token-file").contains("process list").contains("SVC_AUTH_TOKEN");
  }
}
