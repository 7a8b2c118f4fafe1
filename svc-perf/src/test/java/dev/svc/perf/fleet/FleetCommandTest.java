package dev.svc.perf.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.cli.SvcCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** With svc-perf on the class path, {@code svc} has its {@code fleet simulate}, and lists it in its help. */
class FleetCommandTest {

  @Test
  void svcFindsTheFleetCommandOfThisModule() {
    CommandLine svc = SvcCommand.commandLine();
    assertThat(svc.getSubcommands()).containsKey("fleet");
    assertThat(svc.getSubcommands().get("fleet").getSubcommands()).containsKey("simulate");

    StringWriter help = new StringWriter();
    svc.setOut(new PrintWriter(help));
    assertThat(svc.execute("--help")).isZero();
    assertThat(help.toString()).contains("fleet").contains("web");

    StringWriter refused = new StringWriter();
    svc.setErr(new PrintWriter(refused));
    assertThat(svc.execute("fleet", "simulate")).as("--server is required").isEqualTo(2);
    assertThat(refused.toString()).contains("--server");
  }
}
