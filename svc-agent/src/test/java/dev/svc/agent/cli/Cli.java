package dev.svc.agent.cli;

import dev.svc.agent.AgentCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import picocli.CommandLine;

/** Runs {@code svc-agent <args>} in this JVM, as the launcher would, and keeps what it printed. */
record Cli(int code, String out, String err) {

  static Cli run(String... args) {
    return run(AgentCommand::commandLine, args);
  }

  /**
   * Runs the command line {@code line} makes (e.g. a subcommand with a stand-in environment), made
   * once System.out is captured: picocli prints help to the stream it found when it was made.
   */
  static synchronized Cli run(Supplier<CommandLine> line, String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = line.get().execute(args);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    Cli result = new Cli(code, outBytes.toString(StandardCharsets.UTF_8), errBytes.toString(StandardCharsets.UTF_8));
    System.out.print(result.out);
    System.err.print(result.err);
    return result;
  }
}
